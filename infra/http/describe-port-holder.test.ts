import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer, type AddressInfo, type Server, type Socket } from 'node:net';
import t, { type Test } from 'tap';
import { describePortHolder } from './describe-port-holder.ts';

const listen = async (t: Test, server: Server): Promise<number> => {
  const sockets = new Set<Socket>();
  server.on('connection', (s) => (sockets.add(s), s.on('close', () => sockets.delete(s))));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    for (const s of sockets) s.destroy();
    return new Promise((r) => server.close(r));
  });
  return (server.address() as AddressInfo).port;
};

t.test('who holds a busy port', async (t) => {
  const node = createHttpServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url === '/meta') res.end(JSON.stringify({ indexerNodeVersion: '0.1.0', chain: '31337', lastProcessedHeight: 12 }));
    else if (req.url === '/status') res.end(JSON.stringify({ project: 'erc20-starter' }));
    else res.writeHead(404).end('{}');
  });
  t.equal(await describePortHolder(await listen(t, node)), 'in use by another idx-node (project erc20-starter, chain 31337, at block 12)');
  const query = createHttpServer((req, res) => {
    res.setHeader('content-type', 'application/json');
    if (req.url?.startsWith('/?query=')) res.end(JSON.stringify({ data: { _metadata: { queryNodeVersion: '0.1.0' } } }));
    else res.writeHead(404).end('{}');
  });
  t.equal(await describePortHolder(await listen(t, query)), 'in use by idx-query');
  const web = createHttpServer((_req, res) => res.end('hello'));
  t.equal(await describePortHolder(await listen(t, web)), 'in use by another web server');
  // accepts, never answers: the probe gives up quickly
  const silent = createTcpServer(() => {});
  const started = Date.now();
  t.equal(await describePortHolder(await listen(t, silent)), 'in use');
  t.ok(Date.now() - started < 3000, 'without stalling the start');
});

import { createServer } from 'node:http';
import { Counter, Registry } from 'prom-client';
import t from 'tap';
import { listenOnFreePort } from '../../../infra/http/listen-on-free-port.ts';
import { createNodeHttpApp, type Health, type MetaDocument, type StatusPage } from './node-http.ts';

t.test('health, meta, ready, metrics and the 404 body', async (t) => {
  let health: Health = { healthy: false, error: 'connecting to the chain' };
  let ready = false;
  const meta: MetaDocument = {
    indexerNodeVersion: '0.1.0',
    uptime: 1.5,
    chainSdkVersion: '0.1.0',
    apiConnected: true,
    injectedApiConnected: false,
    usingDictionary: false,
    specName: 'ethereum',
    lastProcessedHeight: 12,
  };
  const registry = new Registry();
  new Counter({ name: 'idx_blocks_processed_total', help: 'blocks', registers: [registry] }).inc(12);
  const server = createServer(createNodeHttpApp({ health: () => health, meta: () => meta, ready: () => ready }, registry).callback());
  const port = await listenOnFreePort(server, 43000, { host: '127.0.0.1' });
  t.teardown(() => new Promise((r) => server.close(r)));
  const base = `http://127.0.0.1:${port}`;

  let res = await fetch(`${base}/health`);
  t.equal(res.status, 500);
  t.same(await res.json(), { status: 500, error: 'connecting to the chain' });
  health = { healthy: true };
  t.equal((await fetch(`${base}/health`)).status, 200);

  res = await fetch(`${base}/meta`);
  t.equal(res.status, 200);
  t.same(await res.json(), meta);

  t.equal((await fetch(`${base}/ready`)).status, 503);
  ready = true;
  t.equal((await fetch(`${base}/ready`)).status, 200);

  res = await fetch(`${base}/metrics`);
  t.match(res.headers.get('content-type'), /text\/plain/);
  t.match(await res.text(), /idx_blocks_processed_total 12/);

  res = await fetch(`${base}/nope?x=1`);
  t.equal(res.status, 404);
  t.same(await res.json(), { statusCode: 404, message: 'Cannot GET /nope', error: 'Not Found' });
});

t.test('a busy port moves to the next free one', async (t) => {
  const a = createServer();
  const b = createServer();
  const pa = await listenOnFreePort(a, 43100, { host: '127.0.0.1' });
  const pb = await listenOnFreePort(b, pa, { host: '127.0.0.1' });
  t.teardown(() => Promise.all([a, b].map((s) => new Promise((r) => s.close(r)))));
  t.equal(pb, pa + 1);
});

t.test('--status-page: the page for browsers at /, its figures at /status; without it both are the 404 body', async (t) => {
  const status = { health: () => ({ healthy: true }) as Health, meta: () => ({}) as MetaDocument, ready: () => true };
  const browser = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,*/*;q=0.8';
  const serve = async (page?: StatusPage) => {
    const server = createServer(createNodeHttpApp(status, new Registry(), page).callback());
    const port = await listenOnFreePort(server, 43200, { host: '127.0.0.1' });
    t.teardown(() => new Promise((r) => server.close(r)));
    return `http://127.0.0.1:${port}`;
  };
  const notFound = (path: string) => ({ status: 404, body: { statusCode: 404, message: `Cannot GET ${path}`, error: 'Not Found' } });
  const answer = async (res: Response) => ({ status: res.status, body: await res.json() });

  const on = await serve({ html: '<!doctype html><title>status</title>', document: async () => ({ indexedHeight: 7 }) });
  let res = await fetch(`${on}/`, { headers: { accept: browser } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/html/);
  t.equal(await res.text(), '<!doctype html><title>status</title>');
  t.same(await answer(await fetch(`${on}/`)), notFound('/'), 'curl (Accept: */*) still gets the 404 body');
  t.same(await answer(await fetch(`${on}/`, { headers: { accept: 'application/json' } })), notFound('/'));
  res = await fetch(`${on}/status`);
  t.same(await res.json(), { indexedHeight: 7 });
  t.equal(res.headers.get('cache-control'), 'no-store');

  const off = await serve();
  t.same(await answer(await fetch(`${off}/`, { headers: { accept: browser } })), notFound('/'), 'without the flag: as the reference says');
  t.same(await answer(await fetch(`${off}/status`)), notFound('/status'));
});

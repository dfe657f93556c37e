import { createServer } from 'node:http';
import { listenLocally, type Teardown } from './local-rpc-server.ts';

type RpcCall = { jsonrpc: '2.0'; id: unknown; method: string; params?: unknown[] };

/**
 * A Substrate JSON-RPC proxy (HTTP) whose finalized head trails the best head by `lag` blocks, as
 * a real chain's GRANDPA finality does; the rest passes through. Chopsticks calls every block final
 * as soon as it is built, so without it no block is ever in the unfinalized window.
 */
export async function startFinalityLagProxy(t: Teardown, upstream: string, lag: number): Promise<{ url: string }> {
  const ask = async (body: unknown): Promise<any> => {
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return res.json();
  };
  const finalizedHead = async (): Promise<string> => {
    const best = (await ask({ jsonrpc: '2.0', id: 0, method: 'chain_getHeader', params: [] })).result as { number: string };
    const height = Math.max(0, Number(best.number) - lag);
    return (await ask({ jsonrpc: '2.0', id: 0, method: 'chain_getBlockHash', params: [height] })).result as string;
  };
  const answer = async (call: RpcCall) =>
    call.method === 'chain_getFinalizedHead' ? { jsonrpc: '2.0', id: call.id, result: await finalizedHead() } : undefined;
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as RpcCall | RpcCall[];
        const calls = Array.isArray(body) ? body : [body];
        const ours = await Promise.all(calls.map(answer));
        const rest = calls.filter((_c, i) => ours[i] === undefined);
        const theirs = rest.length === 0 ? [] : ((await ask(rest)) as { id: unknown }[]);
        const byId = new Map(theirs.map((a) => [JSON.stringify(a.id), a]));
        const answers = calls.map((c, i) => ours[i] ?? byId.get(JSON.stringify(c.id)));
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify(Array.isArray(body) ? answers : answers[0]));
      })().catch(() => {
        if (!res.destroyed) res.destroy();
      });
    });
  });
  const { url } = await listenLocally(t, server);
  return { url };
}

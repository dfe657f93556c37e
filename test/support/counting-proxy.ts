import { createServer } from 'node:http';
import { listenLocally } from './local-rpc-server.ts';
import type { Teardown } from './teardown.ts';

export interface CountedCall {
  method: string;
  params: unknown[];
}

export interface CountingProxy {
  url: string;
  /** every JSON-RPC call passed on since the last `reset` (a batch counts its calls) */
  calls(): CountedCall[];
  reset(): void;
}

/** A JSON-RPC proxy in front of `upstream` that notes every call it passes on. */
export async function startCountingProxy(t: Teardown, upstream: string): Promise<CountingProxy> {
  let calls: CountedCall[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        try {
          const body = Buffer.concat(chunks);
          const parsed = JSON.parse(body.toString('utf8')) as CountedCall | CountedCall[];
          for (const c of Array.isArray(parsed) ? parsed : [parsed]) calls.push({ method: c.method, params: c.params ?? [] });
          const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(Buffer.from(await answer.arrayBuffer()));
        } catch (err) {
          res.writeHead(502).end(String(err));
        }
      })();
    });
  });
  const { url } = await listenLocally(t, server);
  return {
    url,
    calls: () => [...calls],
    reset: () => {
      calls = [];
    },
  };
}

/**
 * Calls that read the chain's data rather than where its head is or which chain it is: the head
 * (`eth_blockNumber`, a block by tag) and start-up's identity check (chain id, block 0) are asked
 * of the endpoint on every run, cache or not.
 */
export function blockDataCalls(calls: readonly CountedCall[]): CountedCall[] {
  return calls.filter((c) => {
    if (['eth_chainId', 'net_version', 'eth_blockNumber', 'eth_syncing'].includes(c.method)) return false;
    if (c.method === 'eth_getBlockByNumber' && (typeof c.params[0] !== 'string' || !/^0x[0-9a-f]+$/.test(c.params[0]) || c.params[0] === '0x0')) return false;
    return true;
  });
}

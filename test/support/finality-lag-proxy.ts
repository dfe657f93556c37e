import { startRpcProxy } from './local-rpc-server.ts';
import type { Teardown } from './teardown.ts';

/**
 * A Substrate JSON-RPC proxy (HTTP) whose finalized head trails the best head by `lag` blocks, as
 * a real chain's GRANDPA finality does; the rest passes through. Chopsticks calls every block final
 * as soon as it is built, so without it no block is ever in the unfinalized window.
 */
export async function startFinalityLagProxy(t: Teardown, upstream: string, lag: number): Promise<{ url: string }> {
  const ask = async <T>(method: string, params: unknown[]): Promise<T> => {
    const res = await fetch(upstream, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 0, method, params }),
    });
    return ((await res.json()) as { result: T }).result;
  };
  return startRpcProxy(t, upstream, undefined, async (call, result) => {
    if (call.method !== 'chain_getFinalizedHead') return result;
    const best = await ask<{ number: string }>('chain_getHeader', []);
    return ask<string>('chain_getBlockHash', [Math.max(0, Number(best.number) - lag)]);
  });
}

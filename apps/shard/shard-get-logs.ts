import type { ShardStore } from '../../infra/postgres/shard-store.ts';
import { toQuantity } from '../../infra/rpc/hex-quantity.ts';
import { JsonRpcServerError, RawJson } from '../../infra/rpc/json-rpc-server.ts';
import { pruned, type ShardHeights } from './shard-heights.ts';
import type { ShardKeeper } from './shard-keeper.ts';
import { expectCount, parseLogFilter } from './shard-params.ts';
import { newestServed, servedRange } from './shard-range.ts';

/** geth's code for "unknown block" and other request failures */
export const SERVER_ERROR = -32000;
/** Infura's and geth's code for a query the server limits (eth_getLogs range and result count) */
const LIMIT_EXCEEDED = -32005;

export interface GetLogsContext {
  store: ShardStore;
  keeper: ShardKeeper;
  heights: ShardHeights;
  options: { maxLogRange: number; maxLogResults: number; maxLogBytes: number };
}

/** `eth_getLogs` within the shard's range, refused as Infura and geth refuse a range, a count or a size over the limits. */
export async function getLogs(ctx: GetLogsContext, params: readonly unknown[]): Promise<RawJson> {
  const { store, keeper, heights, options } = ctx;
  expectCount('eth_getLogs', params, 1);
  const filter = parseLogFilter(params[0]);
  const r = keeper.range();
  let from: number;
  let to: number;
  if (filter.blockHash !== undefined) {
    const block = await store.blockByHash(filter.blockHash, servedRange(r));
    if (block === undefined) throw new JsonRpcServerError(SERVER_ERROR, 'unknown block');
    from = to = block.number;
  } else {
    const newest = newestServed(r);
    from = await heights.logBound(filter.fromBlock, r, newest);
    to = await heights.logBound(filter.toBlock, r, newest);
    if (r.head !== null && to > r.head) throw pruned(to, { kind: 'above-head', latest: newest });
    if (from < r.tail && !(from === 0 && to === 0)) throw pruned(from, { kind: 'below-tail', earliest: r.tail });
    to = Math.min(to, newest);
    if (from > to) return new RawJson('[]');
    const span = to - from + 1;
    if (span > options.maxLogRange) {
      throw new JsonRpcServerError(
        LIMIT_EXCEEDED,
        `exceed maximum block range: ${options.maxLogRange} blocks per eth_getLogs, asked for ${span}; try with this block range [${toQuantity(from)}, ${toQuantity(from + options.maxLogRange - 1)}]`,
      );
    }
  }
  const limit = options.maxLogResults;
  const logs = await store.logs({
    fromBlock: from,
    toBlock: to,
    ...(filter.addresses && { addresses: filter.addresses }),
    topics: filter.topics,
    limit: limit + 1,
  });
  if (logs.length > limit) {
    const suggested = Math.max(from, logs[limit]!.blockNumber - 1);
    throw new JsonRpcServerError(
      LIMIT_EXCEEDED,
      `query returned more than ${limit} results. Try with this block range [${toQuantity(from)}, ${toQuantity(suggested)}].`,
      {
        from: toQuantity(from),
        to: toQuantity(suggested),
      },
    );
  }
  // as many bytes as one answer may hold: refused like the result count, with the range that fits
  let bytes = 2;
  for (const [i, l] of logs.entries()) {
    bytes += Buffer.byteLength(l.log) + 1;
    if (bytes <= options.maxLogBytes) continue;
    const suggested = Math.max(from, l.blockNumber - 1);
    throw new JsonRpcServerError(
      LIMIT_EXCEEDED,
      `query returned more than ${options.maxLogBytes} bytes of logs (${i} logs fit). Try with this block range [${toQuantity(from)}, ${toQuantity(suggested)}].`,
      {
        from: toQuantity(from),
        to: toQuantity(suggested),
      },
    );
  }
  return new RawJson(`[${logs.map((l) => l.log).join(',')}]`);
}

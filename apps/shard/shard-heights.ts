import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../../infra/rpc/hex-quantity.ts';
import { JsonRpcServerError } from '../../infra/rpc/json-rpc-server.ts';
import type { BlockParam, BlockTag } from './shard-params.ts';
import { answerHeight, newestServed, type ShardRange } from './shard-range.ts';

/** The error of a request outside `[tail, head]`. */
export const PRUNED_HISTORY = 4444;

/** The refusal of a height outside the shard's range (4444), naming the nearest one it serves. */
export const pruned = (requested: number, answer: { kind: 'below-tail'; earliest: number } | { kind: 'above-head'; latest: number }) =>
  new JsonRpcServerError(
    PRUNED_HISTORY,
    answer.kind === 'below-tail'
      ? `pruned history unavailable: requested ${requested}, earliest available ${answer.earliest}`
      : `pruned history unavailable: requested ${requested}, latest available ${answer.latest}`,
  );

/** The heights block params stand for in the shard's range: numbers as given, tags as the shard or the upstream says. */
export function createShardHeights(upstream: Pick<RpcClient, 'request'>, now: () => number) {
  const upstreamTags = new Map<string, { at: number; height: Promise<number | null> }>();
  /** The upstream's `safe`/`finalized` height, asked at most once a second. */
  function upstreamTag(tag: 'safe' | 'finalized'): Promise<number | null> {
    const cached = upstreamTags.get(tag);
    if (cached !== undefined && now() - cached.at < 1000) return cached.height;
    const height = upstream
      .request<{ number?: unknown } | null>('eth_getBlockByNumber', [tag, false])
      .then((b) => (b === null ? null : hexToNumber(b.number, `${tag} block number`)));
    upstreamTags.set(tag, { at: now(), height });
    height.catch(() => upstreamTags.delete(tag));
    return height;
  }

  /** The height a block param stands for, or null when the shard has no such block (yet); 4444 outside the range. */
  async function resolve(param: BlockParam, r: ShardRange): Promise<number | null> {
    if ('number' in param) {
      const answer = answerHeight(r, param.number);
      if (answer.kind === 'served') return answer.height;
      if (answer.kind === 'unknown') return null;
      throw pruned(param.number, answer);
    }
    return resolveTag(param.tag, r);
  }

  async function resolveTag(tag: BlockTag, r: ShardRange): Promise<number | null> {
    switch (tag) {
      case 'earliest':
        return answerHeight(r, r.tail).kind === 'served' ? r.tail : null;
      case 'latest':
      case 'pending':
        return newestServed(r);
      case 'safe':
      case 'finalized': {
        const height = await upstreamTag(tag);
        if (height === null) return null;
        const clamped = Math.min(height, newestServed(r));
        // below the tail: this shard does not have it, and answering the tail would claim a finality the chain has not reached
        return answerHeight(r, clamped).kind === 'served' ? clamped : null;
      }
    }
  }

  /** A getLogs bound: tags as for blocks; a bound the shard has not synced yet stays as given (the range is clamped after). */
  async function logBound(param: BlockParam, r: ShardRange, newest: number): Promise<number> {
    if ('number' in param) return param.number;
    if (param.tag === 'safe' || param.tag === 'finalized') {
      const height = await upstreamTag(param.tag);
      if (height === null) return newest;
      return Math.min(height, newest);
    }
    if (param.tag === 'earliest') return r.tail;
    return newest;
  }

  return { resolve, logBound };
}

export type ShardHeights = ReturnType<typeof createShardHeights>;

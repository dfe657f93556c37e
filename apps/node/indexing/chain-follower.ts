import type { FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { BlockRef, ChainHeads } from '../../../domain/blocks/chain-heads.ts';

import { deepened, startFetchDepth } from '../../../domain/blocks/fetch-depth.ts';
import { finalizedHeight } from '../../../domain/blocks/finality.ts';
import { nextRange, type HeightRange } from '../../../domain/blocks/next-range.ts';
import { brokenLink } from '../../../domain/blocks/unfinalized-blocks.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { DEFAULT_FETCH_RETRY, withFetchRetry, type FetchRetryPolicy } from './fetch-retry.ts';
import type { RangeFetcher } from './range-fetcher.ts';

/** A fetched range with the identities of its blocks from `keepFrom` (the final height when planned) and of its first block. */
export interface FetchedWithRefs<Fetched> {
  range: HeightRange;
  fetched: Fetched;
  refs: Map<number, BlockRef>;
  keepFrom: number;
}

export interface ChainFollowerDeps<Plan, Fetched> {
  /** retried by the caller (retryingSource) */
  source: ChainHeads;
  /** blocks and logs of ranges, in this thread or in --workers threads */
  fetcher: RangeFetcher<Plan, Fetched>;
  logger: Logger;
  settings: {
    /** index up to the best block instead of the final one */
    unfinalizedBlocks: boolean;
    /** blocks behind the best one treated as final when the chain has no `finalized` tag */
    blockConfirmations: number;
    fetchRetry?: Partial<FetchRetryPolicy>;
  };
  /** whether block identities are needed (forks are being watched) */
  watchingForks: () => boolean;
  /** cuts retry waits short when the node stops */
  signal?: AbortSignal;
}

/**
 * The fetched blocks of a range, refused when two of consecutive heights do not link (the parent
 * of one is not the other): the answers came from two branches, a reorganisation during the fetch
 * or endpoints that disagree, above finality or below it. Retried as a change during the fetch.
 */
function oneBranch<Fetched extends FetchedBlocks>(range: HeightRange, fetched: Fetched): Fetched {
  const blocks = [...fetched.blocks.values()].sort((a, b) => a.height - b.height);
  for (let i = 1; i < blocks.length; i++) {
    const [prev, block] = [blocks[i - 1]!, blocks[i]!];
    if (block.height === prev.height + 1 && block.parentHash.toLowerCase() !== prev.hash.toLowerCase())
      throw new IdxError(
        'CHAIN_CHANGED_DURING_FETCH',
        `blocks of [${range.from},${range.to}] are not one chain: block ${block.height}'s parent is ${block.parentHash}, but block ${prev.height} came as ${prev.hash} (a reorganisation during the fetch, or endpoints that disagree); fetching again`,
        { retryable: true },
      );
  }
  return fetched;
}

/**
 * Heights, finality and ranges fetched ahead: one range per fetch worker plus one in flight, deeper
 * when processing waits for them (fetch-depth.ts), so processing never waits when the fetch can keep up. Fetch failures are retried here, under the
 * one policy of fetch-retry.ts (the RPC client only moves between endpoints).
 */
export function createChainFollower<Plan, Fetched extends FetchedBlocks>(deps: ChainFollowerDeps<Plan, Fetched>) {
  const { source, settings } = deps;
  const log = deps.logger.child('fetch');
  const policy = { ...DEFAULT_FETCH_RETRY, ...settings.fetchRetry };
  let finalized = 0;
  let lastBest: number | undefined;
  let handedOut = 0;
  let queue: { range: HeightRange; promise: Promise<FetchedWithRefs<Fetched>>; settled: boolean; ahead: boolean }[] = [];
  let ahead = startFetchDepth(deps.fetcher.parallelism);

  const retrying = <T>(range: HeightRange, attemptOnce: () => Promise<T>) =>
    withFetchRetry({ label: `fetching [${range.from},${range.to}]`, from: range.from, to: range.to }, attemptOnce, policy, log, deps.signal);

  async function fetchOnce(plan: Plan, range: HeightRange, index: number): Promise<Fetched> {
    const started = Date.now();
    const fetched = await deps.fetcher.fetch(plan, range, index);
    deps.logger.profile('FetchService', 'fetchRange', Date.now() - started);
    return fetched;
  }

  /**
   * A range with the identity of its blocks above finality (and of its first block, which links it
   * to the blocks indexed before). The identities are read before the logs and the newest again
   * after them: a block's hash covers its ancestors, so an unchanged newest hash means the logs
   * came from the branch the identities describe.
   */
  function fetchWithRefs(plan: Plan, range: HeightRange, finalAtPlan: number): Promise<FetchedWithRefs<Fetched>> {
    const index = handedOut++;
    if (!deps.watchingForks())
      return retrying(range, async () => ({ range, fetched: oneBranch(range, await fetchOnce(plan, range, index)), refs: new Map(), keepFrom: finalAtPlan }));
    const heights: number[] = [];
    for (let h = range.from; h <= range.to; h++) if (h >= finalAtPlan || h === range.from) heights.push(h);
    return retrying(range, async () => {
      const before = await source.getBlockRefs(heights);
      const fetched = oneBranch(range, await deps.fetcher.fetch(plan, range, index));
      const refs = new Map(before.map((r) => [r.height, r]));
      const newest = before[before.length - 1]!;
      // Final blocks cannot change: the second look is only for a range that reaches above finality.
      const [after] = newest.height > finalAtPlan ? await source.getBlockRefs([newest.height]) : [newest];
      const changed =
        brokenLink(before) !== undefined ||
        after?.hash !== newest.hash ||
        [...fetched.blocks.values()].some((b) => refs.has(b.height) && refs.get(b.height)!.hash !== b.hash);
      if (changed)
        throw new IdxError(
          'CHAIN_CHANGED_DURING_FETCH',
          `blocks of [${range.from},${range.to}] changed while they were fetched (a reorganisation); fetching again`,
          { retryable: true },
        );
      return { range, fetched, refs, keepFrom: finalAtPlan };
    });
  }

  return {
    /** The best height and the height indexing may go to (the best, or the final one). */
    async heads(): Promise<{ best: number; target: number }> {
      // the first look asks both at once (one round trip less at start); later, finality moves with
      // new blocks: while the head stands still (looked at often near the head), one request a look is enough
      const first = lastBest === undefined ? source.finalizedHeight() : undefined;
      first?.catch(() => undefined);
      const best = await source.bestHeight();
      if (best !== lastBest) {
        const tag = await (first ?? source.finalizedHeight());
        finalized = Math.max(finalized, finalizedHeight(best, tag ?? undefined, settings.blockConfirmations));
        lastBest = best;
      }
      return { best, target: settings.unfinalizedBlocks ? best : finalized };
    },

    finalized: () => finalized,

    /** The range starting at `next`, with the ranges after it (up to `target`) set fetching ahead. */
    async take(next: number, target: number, batchSize: number, planFor: (from: number, to: number) => Plan): Promise<FetchedWithRefs<Fetched>> {
      if (queue.length > 0 && queue[0]!.range.from !== next) queue = [];
      // queues ranges from `start` (or after the last queued) until `ahead.depth` are queued; the one at
      // `next`, queued by this take, is the only one not asked for ahead of time
      const topUp = (start: number) => {
        for (let from = queue.length > 0 ? queue[queue.length - 1]!.range.to + 1 : start; queue.length < ahead.depth;) {
          const r = nextRange(from, target, batchSize);
          if (r === undefined) break;
          const entry = { range: r, promise: fetchWithRefs(planFor(r.from, r.to), r, finalized), settled: false, ahead: r.from !== next };
          const settle = () => (entry.settled = true);
          entry.promise.then(settle, settle);
          queue.push(entry);
          from = r.to + 1;
        }
      };
      topUp(next);
      const taken = queue.shift()!;
      // asked for ahead and still not here: fetching is slower than processing, so fetch further ahead
      if (taken.ahead && !taken.settled && ahead.depth < ahead.max) {
        ahead = deepened(ahead);
        log.debug(`processing waits for [${taken.range.from},${taken.range.to}], fetched ahead: now fetching ${ahead.depth} ranges ahead`);
      }
      // while this range is processed, `ahead.depth` ranges after it are fetched
      topUp(taken.range.to + 1);
      return taken.promise;
    },

    /** Forgets the ranges fetched ahead (a fork, or new data sources that need more data). */
    reset() {
      queue = [];
    },

    /** One range fetched now, with retries (the blocks new data sources need). */
    fetch: (plan: Plan, range: HeightRange) => {
      const index = handedOut++;
      return retrying(range, async () => oneBranch(range, await fetchOnce(plan, range, index)));
    },
  };
}

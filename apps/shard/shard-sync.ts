import { IdxError } from '../../domain/errors.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import type { ShardBlock, ShardStore } from '../../infra/postgres/shard-store.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber } from '../../infra/rpc/hex-quantity.ts';
import type { ShardKeeper } from './shard-keeper.ts';
import type { UpstreamFetcher } from './upstream-fetcher.ts';
import { abortableSleep } from '../../domain/abortable-sleep.ts';

export interface SyncStatus {
  /** the synced height when this process started, for eth_syncing */
  startingBlock: number;
  /** the upstream's latest block, last we asked */
  upstreamHead?: number;
  /** where syncing is heading: the head, or the upstream's latest block below it */
  target?: number;
}

export interface ShardSyncOptions {
  client: RpcClient;
  fetcher: UpstreamFetcher;
  store: ShardStore;
  keeper: ShardKeeper;
  logger: Logger;
  batchSize: number;
  pollIntervalMs: number;
  /** seconds between progress lines (default 5) */
  progressEverySeconds?: number;
}

export interface ShardSync {
  readonly status: SyncStatus;
  /** Syncs until `signal` aborts; throws on an error retrying cannot fix. */
  run(signal: AbortSignal): Promise<void>;
}

/** Heights compared per round when looking for where the upstream's chain and ours part. */
const REORG_STEP = 32;

/**
 * Syncs `[tail, head]` from the upstream in batches, each written in one transaction together with
 * the new synced height, so a kill loses at most the batch in flight. The next batch is fetched
 * while the current one is written. Before a batch is written its first block must follow the
 * block stored below it; when it does not, the upstream has reorganised: the stored blocks back
 * to the common ancestor are replaced.
 */
export function createShardSync(options: ShardSyncOptions): ShardSync {
  const { client, fetcher, store, keeper, batchSize } = options;
  const log = options.logger.child('sync');
  const status: SyncStatus = { startingBlock: keeper.range().synced };
  let prefetch: { from: number; to: number; blocks: Promise<ShardBlock[]> } | undefined;

  function fetchBatch(from: number, to: number): Promise<ShardBlock[]> {
    if (prefetch !== undefined && prefetch.from === from && prefetch.to === to) {
      const { blocks } = prefetch;
      prefetch = undefined;
      return blocks;
    }
    prefetch = undefined;
    return fetcher.fetch(from, to);
  }

  function startPrefetch(from: number, to: number): void {
    const blocks = fetcher.fetch(from, to);
    blocks.catch(() => undefined); // awaited (and its error seen) when used
    prefetch = { from, to, blocks };
  }

  /** The highest height at or below `from` where our block and the upstream's are the same; tail - 1 when none is. */
  async function commonAncestor(from: number): Promise<number> {
    const floor = Math.max(1, keeper.range().tail);
    for (let top = from; top >= floor; top -= REORG_STEP) {
      const heights = Array.from({ length: Math.min(REORG_STEP, top - floor + 1) }, (_, i) => top - i);
      const [ours, theirs] = await Promise.all([store.hashes(heights), fetcher.hashes(heights)]);
      const same = heights.find((h, i) => ours.get(h) !== undefined && ours.get(h) === theirs[i]);
      if (same !== undefined) return same;
    }
    return floor - 1;
  }

  async function replaceOrphans(from: number): Promise<void> {
    const ancestor = await commonAncestor(from);
    await keeper.exclusive(async (r) => {
      if (r.synced <= ancestor) return;
      await store.rewind(ancestor, { synced: ancestor });
      keeper.set({ ...r, synced: ancestor });
      if (ancestor < r.tail) log.warn(`the upstream reorganised below the tail ${r.tail}: every block of the shard was orphaned; syncing again from ${r.tail}`);
      else log.warn(`the upstream reorganised: blocks ${ancestor + 1}..${r.synced} were orphaned and are synced again from ${ancestor + 1}`);
    });
    prefetch = undefined;
  }

  /** Writes the batch unless the range moved meanwhile; false when the batch does not follow our chain. */
  async function write(from: number, blocks: ShardBlock[]): Promise<boolean> {
    return keeper.exclusive(async (r) => {
      if (r.synced + 1 !== from) return true; // the head was lowered or a reorg handled meanwhile: fetch again
      const kept = r.head === null ? blocks : blocks.filter((b) => b.number <= r.head!);
      if (kept.length === 0) return true;
      const below = from - 1;
      if (below === 0 || below >= r.tail) {
        const stored = (await store.hashes([below])).get(below);
        if (stored !== undefined && stored !== kept[0]!.parentHash) return false;
      }
      const synced = kept[kept.length - 1]!.number;
      await store.writeBlocks(kept, { synced });
      keeper.set({ ...r, synced });
      return true;
    });
  }

  async function checkTip(): Promise<void> {
    const { synced, tail } = keeper.range();
    if (synced < Math.max(1, tail)) return;
    const [theirs] = await fetcher.hashes([synced]);
    const ours = (await store.hashes([synced])).get(synced);
    if (ours !== undefined && theirs !== ours) await replaceOrphans(synced);
  }

  return {
    status,
    async run(signal) {
      const every = (options.progressEverySeconds ?? 5) * 1000;
      let sample = { at: Date.now(), synced: keeper.range().synced };
      const progress = setInterval(() => {
        const now = Date.now();
        const { synced, tail, head } = keeper.range();
        const rate = ((synced - sample.synced) * 1000) / Math.max(1, now - sample.at);
        sample = { at: now, synced };
        const target = status.target === undefined ? '' : ` of ${status.target}`;
        log.info(`synced block ${synced}${target} (tail ${tail}, head ${head ?? 'unset'}), ${Math.max(0, rate).toFixed(1)} blocks/s`);
      }, every);
      progress.unref();
      let failures = 0;
      try {
        while (!signal.aborted) {
          try {
            const upstreamHead = hexToNumber(await client.request('eth_blockNumber'), 'block number');
            status.upstreamHead = upstreamHead;
            const r = keeper.range();
            const target = r.head === null ? upstreamHead : Math.min(r.head, upstreamHead);
            status.target = target;
            const from = r.synced + 1;
            if (from > target) {
              await checkTip();
              failures = 0;
              await abortableSleep(options.pollIntervalMs, signal);
              continue;
            }
            const to = Math.min(from + batchSize - 1, target);
            const blocks = await fetchBatch(from, to);
            if (blocks.length === 0) {
              await abortableSleep(options.pollIntervalMs, signal);
              continue;
            }
            const last = blocks[blocks.length - 1]!.number;
            if (last === to && to < target) startPrefetch(to + 1, Math.min(to + batchSize, target));
            if (!(await write(from, blocks))) await replaceOrphans(from - 1);
            failures = 0;
          } catch (err) {
            prefetch = undefined;
            if (signal.aborted) break;
            if (!(err instanceof IdxError) || !err.retryable) throw err;
            failures++;
            const wait = Math.min(30_000, options.pollIntervalMs * 2 ** Math.min(failures, 5));
            log.warn(`${err.message}; trying again in ${(wait / 1000).toFixed(1)} s`);
            await abortableSleep(wait, signal);
          }
        }
      } finally {
        clearInterval(progress);
        prefetch = undefined;
      }
    },
  };
}

import { DEFAULT_FETCH_RETRY, type FetchRetryPolicy, isEndpointBehind, nextFetchRetry } from './fetch-retry.ts';
import type { BlockRef } from '../../domain/blocks/chain-data.ts';
import type { ChainSource } from '../../domain/blocks/chain-source.ts';
import { finalizedHeight } from '../../domain/blocks/finality.ts';
import {
  appendBlock,
  brokenLink,
  findForkPoint,
  fromStoredUnfinalized,
  pruneFinalized,
  toStoredUnfinalized,
  type UnfinalizedBlocks,
} from '../../domain/blocks/unfinalized-blocks.ts';
import { nextRange, type HeightRange } from '../../domain/blocks/next-range.ts';
import type { EntityStore, PoiRow, StoreOperation } from '../../domain/entities/entity-store.ts';
import { poiRow, type Sha256 } from '../../domain/entities/proof-of-index.ts';
import type { StoreCache } from '../../domain/entities/store-cache.ts';
import { IdxError } from '../../domain/errors.ts';
import type { BlockContent, HandlerCall, JsonAbi } from '../../domain/mapping/handler-call.ts';
import { compileDataSource, matchHandlers, planFetch, type CompiledDataSource, type HandlerMatch } from '../../domain/project/compile-data-sources.ts';
import { cronDue } from '../../domain/project/cron-schedule.ts';
import { instantiateTemplate, type DynamicDataSourceRecord } from '../../domain/project/dynamic-data-sources.ts';
import type { Keccak256 } from '../../domain/project/filters.ts';
import type { DataSource, Template } from '../../domain/project/project-model.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import type { BlockExtrasLoader } from './block-extras.ts';
import type { FetchedRange } from './fetch-range.ts';
import type { RangeFetcher } from './range-fetcher.ts';
import type { IndexerStatus } from './indexer-status.ts';
import { rewindProject } from './rewind-project.ts';

/** Runs one block's handler calls (the sandbox). */
export interface BlockRunner {
  runBlock(content: BlockContent, calls: readonly HandlerCall[]): Promise<void>;
}

export interface IndexerSettings {
  batchSize: number;
  /** --store-cache-async */
  flushAsync: boolean;
  /** --store-flush-interval, in ms */
  flushIntervalMs: number;
  /** --store-cache-threshold (sync mode) */
  flushThreshold: number;
  /** --proof-of-index: the project id the hashes cover */
  proofOfIndex?: { projectId: string; sha256: Sha256 };
  /** --unfinalized-blocks: index up to the best block instead of the final one */
  unfinalizedBlocks: boolean;
  /** blocks behind the best one treated as final when the chain has no `finalized` tag */
  blockConfirmations: number;
  /** how often to look for new blocks once caught up, in ms */
  pollIntervalMs: number;
  /** stop once this height is indexed (tests, benchmarks); default: follow the chain */
  stopAtHeight?: number;
  /** --scale-batch-size: the share of memory in use (0..1); batches shrink above 0.7 and grow back below 0.4 */
  memoryPressure?: () => number;
  /** overrides of the fetch retry policy (tests) */
  fetchRetry?: Partial<FetchRetryPolicy>;
}

export interface IndexerDeps {
  /** heads and finality */
  source: ChainSource;
  /** blocks and logs of ranges, in this thread or in --workers threads */
  fetcher: RangeFetcher;
  store: EntityStore;
  cache: StoreCache;
  runner: BlockRunner;
  dataSources: readonly DataSource[];
  templates: readonly Template[];
  /** the JSON ABI of a data source's `options.abi` asset */
  abiOf: (ds: DataSource) => JsonAbi | undefined;
  keccak256: Keccak256;
  logger: Logger;
  status: IndexerStatus;
  settings: IndexerSettings;
  /** the height whose handlers are running, read by the mapping host to stamp writes */
  setCurrentHeight: (height: number) => void;
  /** collects `createDynamicDatasource` calls of the running block */
  takeCreatedDataSources: () => { template: string; args: Record<string, unknown> }[];
  /** loads what mappings read beyond matching (`log.transaction`, every log of a block) and says what plans must ask for */
  extras?: BlockExtrasLoader;
  /** --csv-out-dir: writes a flush's rows before its commit; what it returns is committed as `_metadata.csvExport` */
  exporter?: { append(operations: readonly StoreOperation[]): Promise<unknown> };
}

/** A fetched range with the identities of its blocks from `keepFrom` (the final height when planned) and of its first block. */
interface FetchedWithRefs {
  fetched: FetchedRange;
  refs: Map<number, BlockRef>;
  keepFrom: number;
}

interface Source {
  compiled: CompiledDataSource;
  abi?: JsonAbi;
}

const ASYNC_FLUSH_RECORDS = 10_000;

/**
 * The indexing loop: fetch a range, run its blocks' handlers strictly in order, and flush the
 * writes of whole blocks with `lastProcessedHeight` in one transaction, so a crash at any moment
 * resumes after the last committed block with nothing lost or duplicated.
 */
export function createIndexer(deps: IndexerDeps) {
  const { source, store, cache, runner, settings, status } = deps;
  const log = deps.logger.child('indexer');
  const fetchLog = deps.logger.child('fetch');
  let dynamic: DynamicDataSourceRecord[] = [];
  let sources: Source[] = [];
  let pendingOps: StoreOperation[] = [];
  let pendingPoi: PoiRow[] = [];
  let pendingMark = 0;
  let pendingHeight: number | undefined;
  let pendingBlockTimestamp: number | undefined;
  let dynamicChanged = false;
  let lastPoiHash: Uint8Array | null = null;
  let lastFlushAt = Date.now();
  let chain: Promise<void> = Promise.resolve();
  let flushError: unknown;
  // --unfinalized-blocks: the identity of each indexed block above finality (and the newest final one).
  let unfinalized: UnfinalizedBlocks = [];
  let unfinalizedChanged = false;
  let finalized = 0;

  const rebuildSources = () => {
    const all = [...deps.dataSources, ...dynamic.map((d) => instantiateTemplate(deps.templates, d))];
    sources = all.map((ds, i) => {
      const s: Source = { compiled: compileDataSource(ds, i, deps.keccak256) };
      const abi = deps.abiOf(ds);
      if (abi !== undefined) s.abi = abi;
      return s;
    });
  };

  const startHeight = () => Math.min(...deps.dataSources.map((d) => d.startBlock));
  // Stop at the last end block when every data source (and no template) has one.
  const endHeight = (): number | undefined => {
    if (deps.templates.length > 0 || deps.dataSources.some((d) => d.endBlock === undefined)) return settings.stopAtHeight;
    const end = Math.max(...deps.dataSources.map((d) => d.endBlock!));
    return settings.stopAtHeight === undefined ? end : Math.min(end, settings.stopAtHeight);
  };

  async function target(): Promise<{ best: number; target: number }> {
    const best = await source.bestHeight();
    const tag = await source.finalizedHeight();
    finalized = Math.max(finalized, finalizedHeight(best, tag ?? undefined, settings.blockConfirmations));
    return { best, target: settings.unfinalizedBlocks ? best : finalized };
  }

  /** Forks are looked for while hashes of unfinalized blocks are kept (also when a restart dropped the flag). */
  const watchingForks = () => settings.unfinalizedBlocks || unfinalized.length > 0;

  const planFor = (pool: readonly Source[], from: number, to: number) =>
    planFetch(
      pool.map((s) => s.compiled),
      from,
      to,
      deps.extras?.wanted(),
    );

  let rangesHandedOut = 0;
  async function fetchWithRetry(plan: ReturnType<typeof planFetch>, range: HeightRange): Promise<FetchedRange> {
    const index = rangesHandedOut++;
    return retrying(range, async () => {
      const started = Date.now();
      const fetched = await deps.fetcher.fetch(plan, range, index);
      deps.logger.profile('FetchService', 'fetchRange', Date.now() - started);
      return fetched;
    });
  }

  async function retrying<T>(range: HeightRange, attemptOnce: () => Promise<T>): Promise<T> {
    const policy = { ...DEFAULT_FETCH_RETRY, ...settings.fetchRetry };
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      try {
        return await attemptOnce();
      } catch (err) {
        const wait = nextFetchRetry(err, attempt, waited, policy);
        if (wait === undefined) throw err;
        const left = isEndpointBehind(err) ? `the endpoint is behind; waiting up to ${Math.round((policy.laggingPatienceMs - waited) / 1000)} s more for it` : `${attempt}/${policy.attempts - 1}`;
        fetchLog.warn(`fetching [${range.from},${range.to}] failed (${(err as Error).message}); retrying in ${wait} ms (${left})`);
        await sleep(wait);
        waited += wait;
      }
    }
  }

  /**
   * A range with the identity of its blocks above finality (and of its first block, which links it
   * to the blocks indexed before). The identities are read before the logs and the newest again
   * after them: a block's hash covers its ancestors, so an unchanged newest hash means the logs
   * came from the branch the identities describe.
   */
  async function fetchWithRefs(plan: ReturnType<typeof planFetch>, range: HeightRange, finalAtPlan: number): Promise<FetchedWithRefs> {
    if (!watchingForks()) return { fetched: await fetchWithRetry(plan, range), refs: new Map(), keepFrom: finalAtPlan };
    const heights: number[] = [];
    for (let h = range.from; h <= range.to; h++) if (h >= finalAtPlan || h === range.from) heights.push(h);
    const index = rangesHandedOut++;
    return retrying(range, async () => {
      const before = await source.getBlockRefs(heights);
      const fetched = await deps.fetcher.fetch(plan, range, index);
      const refs = new Map(before.map((r) => [r.height, r]));
      const newest = before[before.length - 1]!;
      // Final blocks cannot change: the second look is only for a range that reaches above finality.
      const [after] = newest.height > finalAtPlan ? await source.getBlockRefs([newest.height]) : [newest];
      const changed =
        brokenLink(before) !== undefined ||
        after?.hash !== newest.hash ||
        [...fetched.blocks.values()].some((b) => refs.has(b.height) && refs.get(b.height)!.hash !== b.hash);
      if (changed) throw new IdxError('CHAIN_CHANGED_DURING_FETCH', `blocks of [${range.from},${range.to}] changed while they were fetched (a reorganisation); fetching again`, { retryable: true });
      return { fetched, refs, keepFrom: finalAtPlan };
    });
  }

  /**
   * Compares the newest kept block the chain has with the chain's block at that height. On a
   * difference, the height of the newest kept block the chain still has (the common ancestor).
   */
  async function findFork(): Promise<number | undefined> {
    try {
      return await forkPoint();
    } catch (err) {
      // The chain moved between two reads (it shrank under a revert): look again on the next round.
      if (err instanceof IdxError && err.retryable) return undefined;
      throw err;
    }
  }

  async function forkPoint(): Promise<number | undefined> {
    if (unfinalized.length === 0) return undefined;
    const best = await source.bestHeight();
    const kept = unfinalized.filter((b) => b.height <= best);
    const newest = kept[kept.length - 1];
    // The chain is shorter than every block kept (a lagging endpoint, or a revert): wait for it to grow.
    if (newest === undefined) return undefined;
    const [now] = await source.getBlockRefs([newest.height]);
    if (now?.hash === newest.hash) return undefined;
    const chainHashes = new Map((await source.getBlockRefs(kept.map((b) => b.height))).map((r) => [r.height, r.hash]));
    const point = findForkPoint(kept, (h) => chainHashes.get(h));
    if (point.kind === 'beyond-window') {
      throw new IdxError(
        'FORK_BEYOND_UNFINALIZED',
        `the chain no longer has any of the blocks kept from ${point.oldest} on: it reorganised below the height treated as final. ` +
          `Run idx-node reindex --targetHeight=<a height below the fork> and start again${settings.unfinalizedBlocks ? '' : ' (with --unfinalized-blocks, or more --block-confirmations)'}`,
      );
    }
    return point.height;
  }

  /** Commits what is processed, then rewinds to the common ancestor and reloads what the rewind changed. */
  async function rollBack(ancestor: number): Promise<number> {
    const from = status.lastProcessedHeight;
    await flush();
    cache.discard();
    const started = Date.now();
    await rewindProject(store, ancestor);
    log.warn(`chain reorganisation: block ${ancestor + 1} onwards changed; rewound from ${from ?? '-'} to ${ancestor} in ${Date.now() - started} ms and indexing the new branch`);
    return load();
  }

  function toCalls(block: FetchedRange, height: number, matches: readonly HandlerMatch[]): { content: BlockContent; calls: HandlerCall[] } {
    const eth = block.blocks.get(height)!;
    const logs = block.logs.get(height) ?? [];
    const logPos = new Map(logs.map((l, i) => [l.logIndex, i]));
    const calls = matches.map((m): HandlerCall => {
      const abi = sources[m.dataSource]!.abi;
      if (m.kind === 'block') return { handler: m.handler, kind: 'block' };
      if (m.kind === 'log') return { handler: m.handler, kind: 'log', index: logPos.get(m.logIndex)!, ...(abi && { abi }) };
      return { handler: m.handler, kind: 'transaction', index: m.transactionIndex, ...(abi && { abi }) };
    });
    return { content: { block: eth, logs, logsComplete: block.logsComplete }, calls };
  }

  /** Runs the handlers of one block; true when it created data sources (the rest of the range must be fetched again). */
  async function processBlock(fetched: FetchedRange, height: number, only?: readonly Source[]): Promise<boolean> {
    const eth = fetched.blocks.get(height);
    const pool = (only ?? sources).map((s) => s.compiled);
    deps.extras?.use(fetched);
    let matches: HandlerMatch[] = [];
    if (eth !== undefined) {
      const prev = fetched.blocks.get(height - 1);
      matches = matchHandlers(
        pool,
        { height, timestamp: eth.timestamp, transactions: eth.transactions, logs: fetched.logs.get(height) ?? [] },
        (ds, h) => {
          const handler = sources[ds]!.compiled.handlers[h]!;
          return handler.kind === 'block' && handler.cron !== undefined && cronDue(handler.cron, prev?.timestamp ?? eth.timestamp - 1, eth.timestamp);
        },
      );
    }
    if (matches.length > 0) {
      deps.setCurrentHeight(height);
      const { content, calls } = toCalls(fetched, height, matches);
      await runner.runBlock(content, calls);
      status.eventsProcessed += calls.length;
    }
    const created = deps.takeCreatedDataSources();
    if (created.length === 0) return false;
    const fresh = created.map((c) => ({ templateName: c.template, startBlock: height, args: c.args }));
    const before = sources.length;
    dynamic = [...dynamic, ...fresh];
    dynamicChanged = true;
    rebuildSources();
    log.info(`created ${fresh.length} data source${fresh.length === 1 ? '' : 's'} from template${fresh.length === 1 ? '' : 's'} ${fresh.map((f) => f.templateName).join(', ')} at block ${height}`);
    // The new data sources apply from this very block: run their handlers on it too.
    const added = sources.slice(before);
    const extra = await fetchWithRetry(planFor(added, height, height), { from: height, to: height });
    if (eth !== undefined && !extra.blocks.has(height)) extra.blocks.set(height, eth);
    await processBlock(extra, height, added);
    return true;
  }

  /** Moves the finished block's writes into the next flush (with its `_poi` row and its identity). */
  function completeBlock(height: number, blockHash: string | undefined, blockTimestamp: number | undefined, ref: BlockRef | undefined) {
    if (ref !== undefined && settings.unfinalizedBlocks) {
      const appended = appendBlock(unfinalized, ref);
      // Checked against the kept blocks before the range ran; a failure here is a bug, not a fork.
      if (!appended.ok) throw new IdxError('UNFINALIZED_BLOCKS_INCONSISTENT', appended.reason);
      unfinalized = appended.blocks;
      unfinalizedChanged = true;
    }
    const { operations, mark } = cache.takeOperations();
    pendingMark = mark;
    if (operations.length > 0) {
      pendingOps.push(...operations);
      if (settings.proofOfIndex && blockHash !== undefined) {
        const row = poiRow({ height, chainBlockHash: blockHash, operations, projectId: settings.proofOfIndex.projectId, parentHash: lastPoiHash }, settings.proofOfIndex.sha256);
        lastPoiHash = row.hash;
        pendingPoi.push(row);
      }
    }
    pendingHeight = height;
    if (blockTimestamp !== undefined) pendingBlockTimestamp = blockTimestamp;
    if (blockTimestamp !== undefined) status.blockTimes.add({ height, timestamp: blockTimestamp });
  }

  /**
   * Hands the finished blocks' writes to the flush chain. The batch is taken now, synchronously, and
   * flushes commit one after another in the order taken: two in flight at once would each insert a
   * live version of the same entity. After a failed flush nothing later is written.
   */
  function scheduleFlush(): Promise<void> {
    if (pendingHeight === undefined) return chain;
    const operations = pendingOps;
    const poi = pendingPoi;
    const mark = pendingMark;
    const height = pendingHeight;
    const metadata: Record<string, unknown> = {
      lastProcessedHeight: height,
      lastProcessedTimestamp: Date.now(),
      targetHeight: status.targetHeight ?? height,
    };
    if (pendingBlockTimestamp !== undefined) metadata.lastProcessedBlockTimestamp = pendingBlockTimestamp;
    if (poi.length > 0) metadata.lastCreatedPoiHeight = poi[poi.length - 1]!.id;
    if (dynamicChanged) metadata.dynamicDatasources = dynamic;
    const pruned = settings.unfinalizedBlocks || unfinalized.some((b) => b.height > finalized) ? pruneFinalized(unfinalized, finalized) : [];
    if (unfinalizedChanged || pruned.length !== unfinalized.length) {
      // Without the flag (a restart that dropped it) the blocks are only watched until they are all final.
      unfinalized = pruned;
      metadata.unfinalizedBlocks = toStoredUnfinalized(unfinalized);
      metadata.lastFinalizedVerifiedHeight = Math.min(finalized, height);
      unfinalizedChanged = false;
    }
    pendingOps = [];
    pendingPoi = [];
    pendingHeight = undefined;
    dynamicChanged = false;
    lastFlushAt = Date.now();
    chain = chain.then(async () => {
      const started = Date.now();
      if (deps.exporter !== undefined) metadata.csvExport = await deps.exporter.append(operations);
      await store.flush({ operations, metadata, poi });
      cache.flushed(mark);
      status.lastProcessedHeight = height;
      status.lastProcessedTimestamp = metadata.lastProcessedTimestamp as number;
      deps.logger.profile('StoreService', `flush ${operations.length} operations`, Date.now() - started);
    });
    chain.catch((err: unknown) => {
      flushError ??= err;
    });
    return chain;
  }

  /** Flushes and waits until everything taken so far is committed. */
  async function flush(): Promise<void> {
    await scheduleFlush();
  }

  function shouldFlush(caughtUp: boolean): boolean {
    if (pendingHeight === undefined) return false;
    if (caughtUp) return true;
    if (Date.now() - lastFlushAt >= settings.flushIntervalMs) return true;
    // Async mode has no threshold of its own (--store-cache-threshold applies to sync mode only); this bound keeps memory flat when indexing fast.
    return cache.pendingCount() >= (settings.flushAsync ? ASYNC_FLUSH_RECORDS : settings.flushThreshold);
  }

  async function load(): Promise<number> {
    const meta = await store.getMetadata(['lastProcessedHeight', 'dynamicDatasources', 'unfinalizedBlocks']);
    dynamic = Array.isArray(meta.dynamicDatasources) ? (meta.dynamicDatasources as DynamicDataSourceRecord[]) : [];
    rebuildSources();
    unfinalized = fromStoredUnfinalized(meta.unfinalizedBlocks);
    unfinalizedChanged = false;
    const last = typeof meta.lastProcessedHeight === 'number' ? meta.lastProcessedHeight : undefined;
    // The chain continues from the newest row kept, which after a rewind is below any height recorded before it.
    lastPoiHash = settings.proofOfIndex && last !== undefined ? ((await store.getLatestPoi(last))?.hash ?? null) : null;
    if (last !== undefined) {
      status.lastProcessedHeight = last;
      log.info(`resuming after block ${last}`);
      return last + 1;
    }
    return startHeight();
  }

  return {
    /** Indexes until `signal` aborts, `stopAtHeight` is reached, or an error; flushes what is complete before returning or throwing. */
    async run(signal: AbortSignal): Promise<void> {
      let next = await load();
      const end = endHeight();
      let queue: { range: HeightRange; promise: Promise<FetchedWithRefs> }[] = [];
      // one range beyond those being fetched, so processing never waits when workers keep up
      const depth = deps.fetcher.parallelism + 1;
      let heads = await target();
      let batchSize = settings.batchSize;
      try {
        // The chain may have reorganised while the node was stopped.
        if (watchingForks()) {
          const ancestor = await findFork();
          if (ancestor !== undefined) next = await rollBack(ancestor);
        }
        while (!signal.aborted) {
          if (end !== undefined && next > end) break;
          if (next > heads.target) heads = await target();
          status.bestHeight = heads.best;
          status.targetHeight = end === undefined ? heads.target : Math.min(end, heads.target);
          if (next > status.targetHeight) {
            status.caughtUp = true;
            if (pendingHeight !== undefined) await flush();
            // Following the head: a reorganisation that keeps the height shows only in the hashes.
            if (watchingForks()) {
              const ancestor = await findFork();
              if (ancestor !== undefined) {
                next = await rollBack(ancestor);
                queue = [];
                continue;
              }
            }
            await sleep(settings.pollIntervalMs, signal);
            continue;
          }
          batchSize = scaleBatchSize(batchSize, settings);
          // Ranges fetched ahead, in order: one per worker, so every worker has one in flight.
          if (queue.length > 0 && queue[0]!.range.from !== next) queue = [];
          for (let from = queue.length > 0 ? queue[queue.length - 1]!.range.to + 1 : next; queue.length < depth; ) {
            const r = nextRange(from, status.targetHeight, batchSize);
            if (r === undefined) break;
            const promise = fetchWithRefs(planFor(sources, r.from, r.to), r, finalized);
            promise.catch(() => undefined);
            queue.push({ range: r, promise });
            from = r.to + 1;
          }
          const { range, promise } = queue.shift()!;
          const { fetched, refs, keepFrom } = await promise;
          // The range's first block must descend from the last block indexed; if not, the chain forked.
          const first = refs.get(range.from);
          if (first !== undefined && unfinalized.length > 0 && !appendBlock(unfinalized, first).ok) {
            queue = [];
            const ancestor = await findFork();
            // Undefined: the chain went back to the branch indexed since the range was fetched; fetch again.
            if (ancestor !== undefined) next = await rollBack(ancestor);
            continue;
          }
          // Logged as ranges are taken, in order (fetches ahead finish in any order); once following the head, only with --debug.
          const line = `fetch block [${range.from},${range.to}], total ${range.to - range.from + 1} blocks`;
          if (status.caughtUp) fetchLog.debug(line);
          else fetchLog.info(line);
          const started = Date.now();
          let h = range.from;
          for (; h <= range.to && !signal.aborted; h++) {
            status.currentProcessingHeight = h;
            status.currentProcessingTimestamp = Date.now();
            const createdSources = await processBlock(fetched, h);
            const block = fetched.blocks.get(h);
            const ref = refs.get(h);
            // Kept from the final height on: the same blocks whenever and however often the node ran.
            completeBlock(h, block?.hash ?? ref?.hash, block?.timestamp ?? ref?.timestamp, h >= keepFrom ? ref : undefined);
            status.blocksProcessed++;
            // Slow handlers: a crash loses at most --store-flush-interval of work, however long the range.
            if (Date.now() - lastFlushAt >= settings.flushIntervalMs && h < range.to) {
              if (settings.flushAsync) void scheduleFlush().catch(() => undefined);
              else await flush();
              if (flushError !== undefined) throw flushError;
            }
            if (createdSources) {
              queue = [];
              h++;
              break;
            }
          }
          status.eventsFetched += fetched.logCount;
          deps.logger.profile('IndexerManager', `process [${range.from},${h - 1}]`, Date.now() - started);
          next = h;
          status.caughtUp = next > status.targetHeight;
          if (shouldFlush(status.caughtUp)) {
            if (settings.flushAsync && !status.caughtUp) void scheduleFlush().catch(() => undefined);
            else await flush();
          }
          if (flushError !== undefined) throw flushError;
        }
      } catch (err) {
        // Keep every block that finished: commit them before reporting the failure.
        cache.takeOperations();
        await flush().catch((flushErr) => log.error(`could not save the blocks indexed before the failure: ${(flushErr as Error).message}`));
        cache.discard();
        throw err;
      }
      await flush();
    },
  };
}

/** --scale-batch-size: halve the batch under memory pressure, grow it back towards --batch-size when there is room. */
export function scaleBatchSize(current: number, settings: Pick<IndexerSettings, 'batchSize' | 'memoryPressure'>): number {
  if (settings.memoryPressure === undefined) return settings.batchSize;
  const pressure = settings.memoryPressure();
  if (pressure > 0.7) return Math.max(1, Math.floor(current / 2));
  if (pressure < 0.4) return Math.min(settings.batchSize, current * 2);
  return current;
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });
}

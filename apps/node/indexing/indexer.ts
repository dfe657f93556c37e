import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';
import { abortableSleep } from '../../../domain/abortable-sleep.ts';
import { createHeadPoll } from '../../../domain/blocks/head-poll.ts';
import type { EntityStore, StoreOperation } from '../../../domain/entities/entity-store.ts';
import type { StoreCacheBooks } from '../../../domain/entities/store-cache.ts';
import type { ChainFamily, FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import { projectStartHeight, type DataSource, type Template } from '../../../domain/project/project-model.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { DEFAULT_FETCH_RETRY, retryingSource, type FetchRetryPolicy } from './fetch-retry.ts';
import type { IndexerStatus } from './indexer-status.ts';
import type { RangeFetcher } from './range-fetcher.ts';
import { rewindProject } from './rewind-project.ts';
import { createBlockProcessor, type BlockRunner } from './block-processor.ts';
import { createChainFollower, type FetchedWithRefs } from './chain-follower.ts';
import { createFlushPipeline, type FlushSettings } from './flush-pipeline.ts';
import { createForkWatch } from './fork-watch.ts';
import { createHistoryCheck } from './history-check.ts';
import { processRange } from './process-range.ts';
import { scaleBatchSize } from './scale-batch-size.ts';

/** the longest a run of blocks in the sandbox goes on before its blocks are completed (block-processor.ts) */
const MAX_RUN_MS = 1000;

export interface IndexerSettings extends FlushSettings {
  batchSize: number;
  /** --unfinalized-blocks: index up to the best block instead of the final one */
  unfinalizedBlocks: boolean;
  /** blocks behind the best one treated as final when the chain has no `finalized` tag */
  blockConfirmations: number;
  /**
   * once caught up, the longest wait between looks for a new block (until the chain's pace is
   * learnt, and while a block is overdue; `domain/blocks/head-poll.ts`), and the shortest between
   * two checks for a reorganisation that kept the height, in ms
   */
  pollIntervalMs: number;
  /** stop once this height is indexed (tests, benchmarks); default: follow the chain */
  stopAtHeight?: number;
  /** where to begin when nothing is indexed yet (`idx-node test`'s range tests); default: the project's first block */
  startHeight?: number;
  /** --scale-batch-size: the share of memory in use (0..1); batches shrink above 0.7 and grow back below 0.4 */
  memoryPressure?: () => number;
  /** overrides of the fetch retry policy (tests) */
  fetchRetry?: Partial<FetchRetryPolicy>;
}

export interface IndexerDeps<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call> {
  /** heads, finality and block identities */
  source: ChainHeads;
  /** blocks and logs of ranges, in this thread or in --workers threads */
  fetcher: RangeFetcher<Plan, Fetched>;
  store: EntityStore;
  cache: StoreCacheBooks;
  /** the chain family: matching blocks to handler calls, what to fetch */
  family: ChainFamily<Compiled, Plan, Fetched, Content, Call>;
  runner: BlockRunner<Content, Call>;
  dataSources: readonly DataSource[];
  templates: readonly Template[];
  /** `network.bypassBlocks`: heights whose handlers do not run */
  bypassed?: (height: number) => boolean;
  logger: Logger;
  status: IndexerStatus;
  settings: IndexerSettings;
  /** --csv-out-dir: writes a flush's rows before its commit; what it returns is committed as `_metadata.csvExport` */
  exporter?: { append(operations: readonly StoreOperation[]): Promise<unknown> };
  /**
   * called once, the first time the node has caught up with the chain head and committed every
   * block up to it (`--promote`); a failure stops the node
   */
  onCaughtUp?: () => Promise<void>;
}

/** Where indexing stops: at the last end block when every data source (and no template) has one, or `stopAtHeight`. */
function endHeight(dataSources: readonly DataSource[], templates: readonly Template[], stopAtHeight: number | undefined): number | undefined {
  if (templates.length > 0 || dataSources.some((d) => d.endBlock === undefined)) return stopAtHeight;
  const end = Math.max(...dataSources.map((d) => d.endBlock!));
  return stopAtHeight === undefined ? end : Math.min(end, stopAtHeight);
}

/**
 * The indexing loop over its stages: the chain follower hands out fetched ranges, the fork watch
 * checks they continue what is indexed, the block processor runs each block's handlers in order,
 * and the flush pipeline commits whole blocks with `lastProcessedHeight` in one transaction, so a
 * crash at any moment resumes after the last committed block with nothing lost or duplicated.
 */
export function createIndexer<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call>(deps: IndexerDeps<Compiled, Plan, Fetched, Content, Call>) {
  const { store, cache, settings, status } = deps;
  let onCaughtUp = deps.onCaughtUp;
  const log = deps.logger.child('indexer');
  const fetchLog = deps.logger.child('fetch');
  // One retry layer for every chain read of the loop; stopping the node cuts its waits short.
  const stopping = new AbortController();
  const source = retryingSource(deps.source, { ...DEFAULT_FETCH_RETRY, ...settings.fetchRetry }, fetchLog, stopping.signal);
  const forks = createForkWatch(source, settings);
  const follower = createChainFollower({ ...deps, source, watchingForks: forks.watching, signal: stopping.signal });
  const blocks = createBlockProcessor({ ...deps, fetch: follower.fetch });
  const flushes = createFlushPipeline({ ...deps, metadataOf: (height) => ({ ...blocks.metadata(), ...forks.metadata(follower.finalized(), height) }) });

  const history = createHistoryCheck({ source, forks, log, rollBack: (ancestor) => rollBack(ancestor) });
  const rangeDeps = {
    processRun: blocks.processRun,
    refetch: follower.reset,
    forks,
    flushes,
    status,
    flushAsync: settings.flushAsync,
    // a quarter of --store-flush-interval, at most a second: a stop waits for at most that
    runBudgetMs: Math.min(MAX_RUN_MS, settings.flushIntervalMs / 4),
    logger: deps.logger,
    fetchLog,
  };

  /** Where to go on from, as the database says: after the last committed block, or the project's start. */
  async function load(): Promise<number> {
    const meta = await store.getMetadata(['lastProcessedHeight', 'dynamicDatasources', 'unfinalizedBlocks', 'lastVerifiableBlock']);
    blocks.load(meta.dynamicDatasources);
    forks.load(meta.unfinalizedBlocks);
    history.load(meta.lastVerifiableBlock);
    const start = settings.startHeight ?? projectStartHeight(deps.dataSources);
    status.startHeight = start;
    const last = typeof meta.lastProcessedHeight === 'number' ? meta.lastProcessedHeight : undefined;
    // The chain continues from the newest row kept, which after a rewind is below any height recorded before it.
    flushes.resumePoi(settings.proofOfIndex && last !== undefined ? ((await store.getLatestPoi(last))?.hash ?? null) : null);
    if (last === undefined) return start;
    status.lastProcessedHeight = last;
    log.info(`resuming after block ${last}`, { event: 'resume', height: last });
    return last + 1;
  }

  /** Commits what is processed, then rewinds to the common ancestor and reloads what the rewind changed. */
  async function rollBack(ancestor: number): Promise<number> {
    const from = status.lastProcessedHeight;
    await flushes.flush();
    cache.discard();
    follower.reset();
    const started = Date.now();
    await rewindProject(store, ancestor);
    const ms = Date.now() - started;
    log.warn(
      `chain reorganisation: block ${ancestor + 1} onwards changed; rewound from ${from ?? '-'} to ${ancestor} in ${ms} ms and indexing the new branch`,
      {
        event: 'reorg',
        from,
        ancestor,
        ms,
      },
    );
    return load();
  }

  /** A fork found now, rewound; the height to go on from (unchanged when there is none). `best`: a head height just read. */
  const rewindIfForked = async (next: number, best?: number) => {
    const ancestor = await forks.findFork(best);
    return ancestor === undefined ? next : rollBack(ancestor);
  };

  return {
    /** Indexes until `signal` aborts, `stopAtHeight` is reached, or an error; flushes what is complete before returning or throwing. */
    async run(signal: AbortSignal): Promise<void> {
      if (signal.aborted) stopping.abort();
      else signal.addEventListener('abort', () => stopping.abort(), { once: true });
      let next = await load();
      const end = endHeight(deps.dataSources, deps.templates, settings.stopAtHeight);
      const headPoll = createHeadPoll({ maxMs: settings.pollIntervalMs });
      const lookAtHeads = async () => {
        const h = await follower.heads();
        headPoll.seen(h.best, Date.now());
        return h;
      };
      let heads = await lookAtHeads();
      let forkCheckedAt = 0;
      let batchSize = settings.batchSize;
      try {
        // The chain may have reorganised while the node was stopped.
        if (forks.watching()) next = await rewindIfForked(next);
        next = await history.verify(next, heads.best);
        while (!signal.aborted && (end === undefined || next <= end)) {
          if (next > heads.target) heads = await lookAtHeads();
          // Once the chain reaches the stored block (a no-op once compared)
          if (history.pending()) next = await history.verify(next, heads.best);
          status.bestHeight = heads.best;
          status.finalizedHeight = follower.finalized();
          status.targetHeight = end === undefined ? heads.target : Math.min(end, heads.target);
          if (next > status.targetHeight) {
            status.caughtUp = true;
            if (flushes.pending()) await flushes.flush();
            if (onCaughtUp !== undefined) {
              // every block up to the head committed (a background flush included) before anyone is told
              const once = onCaughtUp;
              onCaughtUp = undefined;
              await flushes.flush();
              flushes.throwIfFailed();
              await once();
            }
            // Following the head: a reorganisation that keeps the height shows only in the hashes
            // (one that adds blocks shows when the next range is taken).
            let resumed = next;
            if (forks.watching() && Date.now() - forkCheckedAt >= settings.pollIntervalMs) {
              forkCheckedAt = Date.now();
              // the heads were just polled (next > target): their best height serves the check
              resumed = await rewindIfForked(next, heads.best);
            }
            if (resumed === next) await abortableSleep(headPoll.delay(Date.now()), signal);
            next = resumed;
            continue;
          }
          batchSize = scaleBatchSize(batchSize, settings);
          const taken = await follower.take(next, status.targetHeight, batchSize, blocks.plan);
          if (!forks.continues(taken.refs.get(taken.range.from))) {
            follower.reset();
            // No fork found: the chain went back to the branch indexed since the range was fetched; fetch again.
            next = await rewindIfForked(next);
            continue;
          }
          next = await processRange(rangeDeps, taken, signal);
          status.caughtUp = next > status.targetHeight;
          const step = flushes.step(status.caughtUp);
          if (step !== 'collect') await flushes.flushInBackgroundOrWait(settings.flushAsync && !status.caughtUp, step);
          flushes.throwIfFailed();
        }
      } catch (err) {
        // Keep every block that finished: commit them before reporting the failure.
        cache.takeOperations();
        await flushes.flush().catch((flushErr) => log.error(`could not save the blocks indexed before the failure: ${(flushErr as Error).message}`));
        cache.discard();
        throw err;
      }
      await flushes.flush();
    },
  };
}

import type { FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { IndexerStatus } from './indexer-status.ts';
import type { FetchedWithRefs } from './chain-follower.ts';
import type { FlushPipeline } from './flush-pipeline.ts';
import type { ProcessedRun } from './block-processor.ts';
import type { ForkWatch } from './fork-watch.ts';

export interface ProcessRangeDeps<Fetched extends FetchedBlocks> {
  /** runs the handlers of blocks from `from` on, in one entry into the sandbox (block-processor.ts's processRun) */
  processRun: (fetched: Fetched, from: number, to: number, budgetMs?: number) => Promise<ProcessedRun>;
  /** how long one run may go on before it ends after the block running: its blocks reach the flushes in time */
  runBudgetMs: number;
  /** forgets ranges fetched ahead: a new data source needs data they lack */
  refetch: () => void;
  forks: Pick<ForkWatch, 'keep'>;
  flushes: FlushPipeline;
  status: IndexerStatus;
  flushAsync: boolean;
  logger: Logger;
  fetchLog: Logger;
}

/**
 * Runs the blocks of a fetched range in order, many blocks to an entry into the sandbox, and completes each block
 * (its writes into the next flush) in order; the height to go on from. A failed block's error is raised once the
 * blocks before it are completed, so the flush after the failure keeps them.
 */
export async function processRange<Fetched extends FetchedBlocks>(
  deps: ProcessRangeDeps<Fetched>,
  { range, fetched, refs, keepFrom }: FetchedWithRefs<Fetched>,
  signal: AbortSignal,
): Promise<number> {
  const { status, flushes } = deps;
  // Logged as ranges are taken, in order, at debug (`--debug fetch`): a catch-up has hundreds of
  // them, and the progress line says how it goes every few seconds.
  deps.fetchLog.debug(`fetch block [${range.from},${range.to}], total ${range.to - range.from + 1} blocks`);
  const started = Date.now();
  let h = range.from;
  while (h <= range.to && !signal.aborted) {
    status.currentProcessingHeight = h;
    status.currentProcessingTimestamp = Date.now();
    const run = await deps.processRun(fetched, h, range.to, deps.runBudgetMs);
    for (; h <= run.through; h++) {
      const block = fetched.blocks.get(h);
      const ref = refs.get(h);
      // Kept from the final height on: the same blocks whenever and however often the node ran.
      if (h >= keepFrom) deps.forks.keep(ref);
      flushes.complete({ height: h, hash: block?.hash ?? ref?.hash, timestamp: block?.timestamp ?? ref?.timestamp });
      status.blocksProcessed++;
      const step = h < range.to ? flushes.step(false, true) : 'collect';
      if (step !== 'collect') {
        await flushes.flushInBackgroundOrWait(deps.flushAsync, step);
        flushes.throwIfFailed();
      }
    }
    if (run.error !== undefined) throw run.error;
    if (run.created) {
      deps.refetch();
      break;
    }
  }
  status.eventsFetched += fetched.logCount;
  deps.logger.profile('IndexerManager', `process [${range.from},${h - 1}]`, Date.now() - started);
  return h;
}

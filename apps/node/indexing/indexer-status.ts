import { createBlockTimeWindow, type BlockTimeWindow } from '../../../domain/blocks/block-time.ts';

/** Where indexing stands: the loop writes it, `/meta`, `/health`, `/ready`, metrics and the progress line read it. */
export interface IndexerStatus {
  /** the project's first block (its lowest data source startBlock): where progress is counted from */
  startHeight?: number;
  bestHeight?: number;
  /** the chain's final block as the node reads it (the `finalized` tag, else --block-confirmations behind the best) */
  finalizedHeight?: number;
  targetHeight?: number;
  currentProcessingHeight?: number;
  currentProcessingTimestamp?: number;
  lastProcessedHeight?: number;
  lastProcessedTimestamp?: number;
  caughtUp: boolean;
  blocksProcessed: number;
  /** handler invocations */
  eventsProcessed: number;
  /** logs fetched */
  eventsFetched: number;
  /** the recent processed blocks with timestamps: `/meta`'s `blockTime` */
  blockTimes: BlockTimeWindow;
}

export function createIndexerStatus(): IndexerStatus {
  return { caughtUp: false, blocksProcessed: 0, eventsProcessed: 0, eventsFetched: 0, blockTimes: createBlockTimeWindow() };
}

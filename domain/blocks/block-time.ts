/** A processed block whose timestamp is known (seconds since the epoch, as on chain). */
export interface TimedBlock {
  height: number;
  timestamp: number;
}

/**
 * The average time between blocks from `older` to `newer`, in whole milliseconds (the unit of
 * `/meta`'s `blockTime`). Two blocks some distance apart, as SubQuery measures it: the blocks in
 * between need no timestamp, and blocks sharing a second (fast chains, anvil) average out. Undefined
 * unless `newer` is above `older`; never negative.
 */
export function averageBlockTime(older: TimedBlock, newer: TimedBlock): number | undefined {
  const blocks = newer.height - older.height;
  if (!(blocks > 0)) return undefined;
  return Math.max(0, Math.round(((newer.timestamp - older.timestamp) * 1000) / blocks));
}

/** The blocks `/meta`'s `blockTime` is measured over. */
export interface BlockTimeWindow {
  /** a block just processed; one at or below the newest (a rewind) forgets the blocks from its height up */
  add(block: TimedBlock): void;
  /** over the window; undefined until two blocks of different heights are known */
  average(): number | undefined;
}

/** Heights the window spans: recent enough to follow a chain's pace, long enough to smooth equal timestamps. */
export const BLOCK_TIME_SPAN = 100;

/**
 * A rolling window of the recent processed blocks with timestamps: the newest, and the last one at
 * least `span` heights below it (or the oldest known, until the node has gone that far). Only blocks
 * whose timestamp was fetched are added, so the window may be sparse; the average is still exact.
 */
export function createBlockTimeWindow(span = BLOCK_TIME_SPAN): BlockTimeWindow {
  let blocks: TimedBlock[] = [];
  return {
    add(block) {
      const newest = blocks[blocks.length - 1];
      if (newest !== undefined && block.height <= newest.height) blocks = blocks.filter((b) => b.height < block.height);
      blocks.push({ height: block.height, timestamp: block.timestamp });
      // keep one block at or below the span's start, so the window spans at least `span` once it can
      while (blocks.length > 2 && blocks[1]!.height <= block.height - span) blocks.shift();
    },
    average() {
      return blocks.length < 2 ? undefined : averageBlockTime(blocks[0]!, blocks[blocks.length - 1]!);
    },
  };
}

/** What the indexing loop does with the store cache after a range (or a block, when the flush interval is due). */
export type FlushStep =
  /** go on processing: the writes wait in memory for a later flush */
  | 'collect'
  /** flush what is complete; in async mode processing goes on while it commits */
  | 'flush'
  /** flush what is complete, and wait until the flush before it has committed: memory is at its bound */
  | 'flush-after-previous';

export interface FlushState {
  /** the node reached the chain's target: flush now, nothing more comes soon */
  caughtUp: boolean;
  /** a flush is committing (async mode) */
  inFlight: boolean;
  /** records written and not committed yet, those of the flush in flight included */
  pending: number;
  /** ms since the last flush was scheduled */
  sinceLastFlushMs: number;
  /** between two blocks of a range: only the interval and the upper limit apply there, the record thresholds wait for the range's end */
  withinRange?: boolean;
}

export interface FlushLimits {
  /** --store-cache-async */
  async: boolean;
  /** --store-flush-interval, in ms */
  intervalMs: number;
  /** --store-cache-threshold: sync mode flushes at this many records */
  threshold: number;
  /** --store-cache-upper-limit: async mode holds at most about this many records; its flushes start at half of it */
  upperLimit: number;
}

/**
 * When to flush. Sync mode flushes at the threshold or the interval and waits for it. Async mode
 * flushes at half the upper limit or the interval while processing goes on, and never queues a
 * second flush behind the one committing: the next one collects meanwhile (bigger batches when the
 * database is the slower side), and once the records held reach the upper limit, processing waits
 * for the flush committing. Memory is then bounded by the upper limit, however long the run; without
 * the bound, a database slower than the mappings let flushes queue up for the whole run.
 */
export function flushStep(s: FlushState, limits: FlushLimits): FlushStep {
  if (s.caughtUp && !s.withinRange) return 'flush';
  if (limits.async && s.inFlight) return s.pending >= limits.upperLimit ? 'flush-after-previous' : 'collect';
  if (s.sinceLastFlushMs >= limits.intervalMs) return 'flush';
  if (s.withinRange) return 'collect';
  return s.pending >= (limits.async ? asyncFlushRecords(limits.upperLimit) : limits.threshold) ? 'flush' : 'collect';
}

/** Async mode's flushes start at half the upper limit, so one can commit while the next collects as many. */
export const asyncFlushRecords = (upperLimit: number): number => Math.max(1, Math.floor(upperLimit / 2));

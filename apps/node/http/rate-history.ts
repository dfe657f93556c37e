/** One sample of the indexing pace: what the status page's chart draws. */
export interface RatePoint {
  /** ms since the epoch */
  at: number;
  /** the last block committed then */
  height?: number;
  blocksPerSecond: number;
  eventsPerSecond: number;
}

/** The counters a sample reads (the indexer's status). */
export interface RateCounters {
  lastProcessedHeight?: number;
  blocksProcessed: number;
  eventsProcessed: number;
}

export interface RateHistory {
  /** takes a sample of `counters` at `now`: the rates since the previous sample */
  sample(counters: RateCounters, now: number): void;
  /** the samples kept, oldest first */
  points(): RatePoint[];
  /** blocks per second over the last `ms` (for an ETA that does not jump with each sample); undefined before two samples */
  blocksPerSecondOver(ms: number): number | undefined;
}

/**
 * The recent pace of indexing, sampled at fixed times and kept for the last `keep` samples, so the
 * status page shows a chart at once instead of from the moment it was opened, in bounded memory.
 */
export function createRateHistory(options: { keep: number }): RateHistory {
  const points: RatePoint[] = [];
  let previous: { at: number; blocks: number; events: number } | undefined;
  // blocks counted at each sample, for rates over a longer span than one sample
  const totals: { at: number; blocks: number }[] = [];
  return {
    sample(counters, now) {
      if (previous !== undefined && now > previous.at) {
        const seconds = (now - previous.at) / 1000;
        points.push({
          at: now,
          ...(counters.lastProcessedHeight !== undefined && { height: counters.lastProcessedHeight }),
          blocksPerSecond: round1((counters.blocksProcessed - previous.blocks) / seconds),
          eventsPerSecond: round1((counters.eventsProcessed - previous.events) / seconds),
        });
        if (points.length > options.keep) points.shift();
      }
      previous = { at: now, blocks: counters.blocksProcessed, events: counters.eventsProcessed };
      totals.push({ at: now, blocks: counters.blocksProcessed });
      if (totals.length > options.keep + 1) totals.shift();
    },
    points: () => points.slice(),
    blocksPerSecondOver(ms) {
      const last = totals.at(-1);
      if (last === undefined || totals.length < 2) return undefined;
      const first = totals.find((p) => p.at >= last.at - ms) ?? totals[0]!;
      const from = first === last ? totals.at(-2)! : first;
      if (last.at <= from.at) return undefined;
      return (last.blocks - from.blocks) / ((last.at - from.at) / 1000);
    },
  };
}

const round1 = (n: number) => Math.round(n * 10) / 10;

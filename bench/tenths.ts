/** One look at an indexer's `/meta`: when, the block in progress, the last block committed. */
export interface ProgressSample {
  /** ms (performance.now()) */
  at: number;
  processing?: number;
  committed?: number;
}

export interface TenthRates {
  /** events/s over the first tenth of the blocks */
  first: number;
  /** events/s over the last tenth of the blocks */
  last: number;
  /** last / first: 1 when the pace holds as the run grows */
  ratio: number;
  /** seconds from the last block in progress to it committed (the final flush) */
  drainSeconds: number;
}

/**
 * Events/s over the first and the last tenth of the blocks [from, to], from the heights in progress
 * seen over time: a tenth runs from the first look at a height at or past its first block to the
 * first look past its last one (for the last tenth: the last block in progress), so both are
 * measured alike, by processing, and the final flush is told apart (`drainSeconds`). Events are
 * taken as spread evenly over the blocks (the ERC20 workloads' are). Undefined when the looks do
 * not cover the run.
 */
export function tenthRates(samples: readonly ProgressSample[], from: number, to: number, events: number): TenthRates | undefined {
  const blocks = to - from + 1;
  const tenth = Math.ceil(blocks / 10);
  if (blocks < 10) return undefined;
  const firstAt = (ok: (s: ProgressSample) => boolean) => samples.find(ok)?.at;
  const begun = firstAt((s) => s.processing !== undefined);
  const firstDone = firstAt((s) => (s.processing ?? -Infinity) >= from + tenth || (s.committed ?? -Infinity) >= from + tenth - 1);
  const lastBegun = firstAt((s) => (s.processing ?? -Infinity) >= to - tenth + 1 || (s.committed ?? -Infinity) >= to - tenth + 1);
  const lastInProgress = firstAt((s) => (s.processing ?? -Infinity) >= to || (s.committed ?? -Infinity) >= to);
  const committed = firstAt((s) => (s.committed ?? -Infinity) >= to);
  if (begun === undefined || firstDone === undefined || lastBegun === undefined || lastInProgress === undefined || committed === undefined) return undefined;
  // a tenth's events over at least one look's time, so a tenth seen between two looks is not infinitely fast
  const look = minimumGap(samples);
  const rate = (ms: number) => (events * (tenth / blocks)) / (Math.max(ms, look) / 1000);
  const first = rate(firstDone - begun);
  const last = rate(lastInProgress - lastBegun);
  return { first, last, ratio: last / first, drainSeconds: (committed - lastInProgress) / 1000 };
}

function minimumGap(samples: readonly ProgressSample[]): number {
  let gap = Infinity;
  for (let i = 1; i < samples.length; i++) gap = Math.min(gap, samples[i]!.at - samples[i - 1]!.at);
  return Number.isFinite(gap) ? gap : 1;
}

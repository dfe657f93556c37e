import { blockParam } from './cacheable-call.ts';

/** A kept log answer over `[from, to]`, under some `T` the store finds it by. */
export interface KeptSpan<T> {
  from: number;
  to: number;
  at: T;
}

/**
 * Kept answers whose ranges together cover `[from, to]` (fewest first found: the widest reaching
 * furthest at each step), or undefined when some height of it is in none: a later run may cut its
 * ranges differently (a restart mid-range, another batch size) and still be answered.
 */
export function coveringSpans<T>(spans: readonly KeptSpan<T>[], from: number, to: number): KeptSpan<T>[] | undefined {
  const chosen: KeptSpan<T>[] = [];
  let next = from;
  while (next <= to) {
    let best: KeptSpan<T> | undefined;
    for (const s of spans) if (s.from <= next && s.to >= next && (best === undefined || s.to > best.to)) best = s;
    if (best === undefined) return undefined;
    chosen.push(best);
    next = best.to + 1;
  }
  return chosen;
}

type Log = { blockNumber?: unknown; logIndex?: unknown };
const heightOf = (log: Log) => {
  const at = blockParam(log.blockNumber);
  return at !== undefined && 'height' in at ? at.height : -1;
};
const indexOf = (log: Log) => (typeof log.logIndex === 'string' ? Number.parseInt(log.logIndex, 16) : Number(log.logIndex));

/**
 * The logs of `[from, to]` out of kept answers that cover it, as the endpoint answers the range:
 * in block and log order, each once (kept ranges may overlap). Undefined when a log lacks its
 * block number: that answer cannot be cut, so the range is fetched.
 */
export function logsWithin(lists: readonly unknown[][], from: number, to: number): unknown[] | undefined {
  const seen = new Set<string>();
  const out: { h: number; i: number; log: Log }[] = [];
  for (const list of lists)
    for (const log of list as Log[]) {
      const h = heightOf(log);
      if (h < 0) return undefined;
      if (h < from || h > to) continue;
      const i = indexOf(log);
      const id = `${h}:${i}`;
      if (seen.has(id)) continue;
      seen.add(id);
      out.push({ h, i, log });
    }
  return out.sort((a, b) => a.h - b.h || a.i - b.i).map((e) => e.log);
}

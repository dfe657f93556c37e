/**
 * Edits between two names: insertions, deletions, substitutions and swaps of two neighbouring
 * characters (optimal string alignment), so `handleTranfser` is one edit from `handleTransfer`'s typo.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) => [i, ...new Array<number>(b.length).fill(0)]);
  for (let j = 0; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}

/**
 * The candidate `name` was most likely meant to be, for a "did you mean …?": the only one within
 * `maxEdits` (case aside, a difference in case alone counts as one edit), or undefined when none or
 * several are that close.
 */
export function closestName(name: string, candidates: Iterable<string>, maxEdits = 1): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  let tie = false;
  for (const c of candidates) {
    if (c === name) continue;
    const d = c.toLowerCase() === name.toLowerCase() ? 1 : editDistance(c, name);
    if (d > maxEdits) continue;
    if (d < bestDistance) {
      best = c;
      bestDistance = d;
      tie = false;
    } else if (d === bestDistance) tie = true;
  }
  return tie ? undefined : best;
}

/** ` (did you mean "x"?)`, or nothing. */
export function didYouMean(name: string, candidates: Iterable<string>, maxEdits = 1): string {
  const match = closestName(name, candidates, maxEdits);
  return match === undefined ? '' : ` (did you mean "${match}"?)`;
}

/** One entry of `network.bypassBlocks`: a height, or a range `"from-to"` (both ends included). */
export function parseBypassEntry(entry: unknown): { from: number; to: number } | undefined {
  if (typeof entry === 'number') return Number.isSafeInteger(entry) && entry >= 0 ? { from: entry, to: entry } : undefined;
  if (typeof entry !== 'string') return undefined;
  const range = /^\s*(\d+)\s*-\s*(\d+)\s*$/.exec(entry);
  if (range === null) return undefined;
  const [from, to] = [Number(range[1]), Number(range[2])];
  return from <= to ? { from, to } : undefined;
}

/**
 * Whether a height is one of `network.bypassBlocks` (SubQuery's list of blocks not to index, e.g. ones
 * a runtime bug made undecodable): such a block's handlers do not run; the node goes on past it.
 * The manifest check has refused malformed entries; any left are ignored here.
 */
export function bypassedHeights(entries: readonly unknown[] | undefined): ((height: number) => boolean) | undefined {
  const ranges = (entries ?? []).map(parseBypassEntry).filter((r) => r !== undefined);
  if (ranges.length === 0) return undefined;
  return (height) => ranges.some((r) => r.from <= height && height <= r.to);
}

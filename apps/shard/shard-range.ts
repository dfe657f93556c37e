/**
 * The shard's range and its rules (docs/usage.md, idx-shard). The data kept is `[tail, head]` plus genesis;
 * of it, `[tail, synced]` is what has been synced so far, and only that is served.
 */
export interface ShardRange {
  tail: number;
  /** null: unset, the shard follows the chain */
  head: number | null;
  /** the highest block of the contiguous run synced from the tail; `tail - 1` before the first */
  synced: number;
}

/** The newest block served: the synced height, or genesis while nothing from the tail is synced. */
export function newestServed(r: ShardRange): number {
  return r.synced >= r.tail ? r.synced : 0;
}

/** The heights whose data may be answered, as the store's lookups by hash take them (genesis is always). */
export function servedRange(r: ShardRange): { from: number; to: number } {
  return { from: r.tail, to: newestServed(r) };
}

export type HeightAnswer =
  | { kind: 'served'; height: number }
  /** below the tail: error 4444 naming the earliest available block */
  | { kind: 'below-tail'; earliest: number }
  /** above the head: error 4444 naming the latest available block */
  | { kind: 'above-head'; latest: number }
  /** not synced yet (or not produced yet): null, as a node answers for a future block */
  | { kind: 'unknown' };

export function answerHeight(r: ShardRange, height: number): HeightAnswer {
  if (height === 0) return { kind: 'served', height };
  if (height < r.tail) return { kind: 'below-tail', earliest: r.tail };
  if (r.head !== null && height > r.head) return { kind: 'above-head', latest: newestServed(r) };
  if (height > r.synced) return { kind: 'unknown' };
  return { kind: 'served', height };
}

/** Why `admin_setEndHeight` may not set the head to `head` (null or 0 unsets it), or undefined when it may. */
export function refuseEnd(r: ShardRange, head: number | null, hasBlock: boolean): string | undefined {
  if (head === null || head === 0) return undefined;
  if (head <= r.tail)
    return `the head must be greater than the tail: the tail is ${r.tail}, so the head must be ${r.tail + 1} or more (or null to follow the chain)`;
  // Lowering the head below what is synced truncates to it, which needs the block there.
  if (head < r.synced && !hasBlock) return `no chain state at block ${head}: this shard has no data for it, so the head cannot be moved there`;
  return undefined;
}

/** Why `admin_setStartHeight` may not set the tail to `tail`, or undefined when it may. */
export function refuseStart(r: ShardRange, tail: number): string | undefined {
  if (tail <= r.tail) return `the tail only moves forward: it is ${r.tail}, so the new tail must be ${r.tail + 1} or more`;
  if (r.head !== null && tail >= r.head) return `the tail must be below the head ${r.head}`;
  if (tail > r.synced) {
    return `block ${tail} is not synced yet (synced up to ${newestServed(r)}): the tail must be a block the shard already has`;
  }
  return undefined;
}

/** The range after `admin_setEndHeight`: a head below the synced height truncates to it. */
export function withEnd(r: ShardRange, head: number | null): ShardRange {
  const h = head === 0 ? null : head;
  return { ...r, head: h, synced: h === null ? r.synced : Math.min(r.synced, h) };
}

export function withStart(r: ShardRange, tail: number): ShardRange {
  return { ...r, tail };
}

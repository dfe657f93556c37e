import type { BlockRef } from './chain-heads.ts';

/**
 * The indexed blocks not yet final, oldest first, as a plain value (persisted in `_metadata`).
 * A fork shows as a block whose parent hash is not the hash we indexed at the height below,
 * or as a stored hash the chain no longer has at a height that has since become final.
 */
export type UnfinalizedBlocks = readonly BlockRef[];

export type AppendResult = { ok: true; blocks: UnfinalizedBlocks } | { ok: false; reason: string };

/** Appends a newly indexed block, or reports the fork it reveals. */
export function appendBlock(blocks: UnfinalizedBlocks, block: BlockRef): AppendResult {
  const last = blocks[blocks.length - 1];
  if (last !== undefined) {
    if (block.height <= last.height) {
      return { ok: false, reason: `block ${block.height} comes after ${last.height} was already indexed` };
    }
    if (block.height === last.height + 1 && block.parentHash !== last.hash) {
      return { ok: false, reason: `block ${block.height} has parent ${block.parentHash}, but block ${last.height} was indexed as ${last.hash}` };
    }
  }
  return { ok: true, blocks: [...blocks, block] };
}

/**
 * Drops the blocks at or below `finalized`, except the newest of them, which stays as the anchor
 * that later blocks (and a restart) are checked against.
 */
export function pruneFinalized(blocks: UnfinalizedBlocks, finalized: number): UnfinalizedBlocks {
  let cut = 0;
  while (cut + 1 < blocks.length && blocks[cut + 1]!.height <= finalized) cut++;
  return blocks.slice(cut);
}

/** A stored block whose hash the chain now has differently at a final height: the chain forked below finality. */
export function finalizedMismatch(blocks: UnfinalizedBlocks, finalized: number, chainHashAt: (height: number) => string | undefined): BlockRef | undefined {
  for (const b of blocks) {
    if (b.height > finalized) break;
    const hash = chainHashAt(b.height);
    if (hash !== undefined && hash !== b.hash) return b;
  }
  return undefined;
}

export type ForkPoint = { kind: 'ancestor'; height: number } | { kind: 'beyond-window'; oldest: number };

/**
 * Where to rewind after a fork: the newest stored block whose hash the chain still has.
 * `beyond-window` when none matches: the fork is older than every block kept, so the caller
 * must rewind further (to the last final height) or stop.
 */
export function findForkPoint(blocks: UnfinalizedBlocks, chainHashAt: (height: number) => string | undefined): ForkPoint {
  for (let i = blocks.length - 1; i >= 0; i--) {
    const b = blocks[i]!;
    if (chainHashAt(b.height) === b.hash) return { kind: 'ancestor', height: b.height };
  }
  return { kind: 'beyond-window', oldest: blocks[0]?.height ?? 0 };
}

/** After rewinding to `height`, the blocks kept are those at or below it. */
export function rewindBlocks(blocks: UnfinalizedBlocks, height: number): UnfinalizedBlocks {
  return blocks.filter((b) => b.height <= height);
}

/** One entry of `_metadata.unfinalizedBlocks`, in SubQuery's shape. */
export interface StoredUnfinalizedBlock {
  blockHeight: number;
  blockHash: string;
  parentHash: string;
  timestamp: number;
}

export function toStoredUnfinalized(blocks: UnfinalizedBlocks): StoredUnfinalizedBlock[] {
  return blocks.map((b) => ({ blockHeight: b.height, blockHash: b.hash, parentHash: b.parentHash, timestamp: b.timestamp }));
}

/** The list kept in `_metadata`; anything else (no key yet, an older shape) reads as none kept. */
export function fromStoredUnfinalized(value: unknown): UnfinalizedBlocks {
  if (!Array.isArray(value)) return [];
  const out: BlockRef[] = [];
  for (const v of value as Partial<StoredUnfinalizedBlock>[]) {
    if (typeof v?.blockHeight !== 'number' || typeof v.blockHash !== 'string' || typeof v.parentHash !== 'string') continue;
    out.push({ height: v.blockHeight, hash: v.blockHash, parentHash: v.parentHash, timestamp: typeof v.timestamp === 'number' ? v.timestamp : 0 });
  }
  return out.sort((a, b) => a.height - b.height);
}

/** The refs fetched for a range must form one branch: each the parent of the next where heights are consecutive. */
export function brokenLink(refs: readonly BlockRef[]): BlockRef | undefined {
  for (let i = 1; i < refs.length; i++) {
    const prev = refs[i - 1]!;
    const ref = refs[i]!;
    if (ref.height === prev.height + 1 && ref.parentHash !== prev.hash) return ref;
  }
  return undefined;
}

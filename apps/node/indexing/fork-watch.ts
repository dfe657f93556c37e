import type { BlockRef, ChainHeads } from '../../../domain/blocks/chain-heads.ts';

import {
  appendBlock,
  findForkPoint,
  fromStoredUnfinalized,
  pruneFinalized,
  toStoredUnfinalized,
  type UnfinalizedBlocks,
} from '../../../domain/blocks/unfinalized-blocks.ts';
import { IdxError } from '../../../domain/errors.ts';

export type ForkWatch = ReturnType<typeof createForkWatch>;

/**
 * --unfinalized-blocks: the identity of each indexed block above finality (and the newest final
 * one), kept with the data so that a reorganisation, found now or after a restart, can be rewound
 * to the common ancestor. Forks are looked for while any such block is kept, also when a restart
 * dropped the flag, until they are all final.
 */
export function createForkWatch(source: Pick<ChainHeads, 'bestHeight' | 'getBlockRefs'>, settings: { unfinalizedBlocks: boolean }) {
  let kept: UnfinalizedBlocks = [];
  let changed = false;

  async function forkPoint(knownBest: number | undefined): Promise<number | undefined> {
    if (kept.length === 0) return undefined;
    const best = knownBest ?? (await source.bestHeight());
    const onChain = kept.filter((b) => b.height <= best);
    const newest = onChain[onChain.length - 1];
    // The chain is shorter than every block kept (a lagging endpoint, or a revert): wait for it to grow.
    if (newest === undefined) return undefined;
    const [now] = await source.getBlockRefs([newest.height]);
    if (now?.hash === newest.hash) return undefined;
    const chainHashes = new Map((await source.getBlockRefs(onChain.map((b) => b.height))).map((r) => [r.height, r.hash]));
    const point = findForkPoint(onChain, (h) => chainHashes.get(h));
    if (point.kind === 'beyond-window') {
      throw new IdxError(
        'FORK_BEYOND_UNFINALIZED',
        `the chain no longer has any of the blocks kept from ${point.oldest} on: it reorganised below the height treated as final. ` +
          `Run idx-node reindex --targetHeight=<a height below the fork> and start again${settings.unfinalizedBlocks ? '' : ' (with --unfinalized-blocks, or more --block-confirmations)'}`,
      );
    }
    return point.height;
  }

  return {
    /** the blocks kept by an earlier run (`_metadata.unfinalizedBlocks`) */
    load(stored: unknown) {
      kept = fromStoredUnfinalized(stored);
      changed = false;
    },

    watching: () => settings.unfinalizedBlocks || kept.length > 0,

    /** Whether blocks are kept (by this run or an earlier one): a fork among them can be rewound. */
    keeps: () => kept.length > 0,

    /** Whether a range starting with `first` continues the blocks indexed; if not, the chain forked. */
    continues: (first: BlockRef | undefined) => first === undefined || kept.length === 0 || appendBlock(kept, first).ok,

    /** Keeps a processed block's identity (with --unfinalized-blocks). */
    keep(ref: BlockRef | undefined) {
      if (ref === undefined || !settings.unfinalizedBlocks) return;
      const appended = appendBlock(kept, ref);
      // Checked against the kept blocks before the range ran; a failure here is a bug, not a fork.
      if (!appended.ok) throw new IdxError('UNFINALIZED_BLOCKS_INCONSISTENT', appended.reason);
      kept = appended.blocks;
      changed = true;
    },

    /**
     * The height of the newest kept block the chain still has when the chain no longer has the
     * newest kept one (the common ancestor); undefined when nothing changed or the chain moved
     * between two reads (looked at again on the next round). `best`: the chain's head height when
     * the caller has just read it (following the head), so that it is not asked again.
     */
    async findFork(best?: number): Promise<number | undefined> {
      try {
        return await forkPoint(best);
      } catch (err) {
        if (err instanceof IdxError && err.retryable) return undefined;
        throw err;
      }
    },

    /** What a flush up to `height` commits: the kept blocks, pruned below `finalized`, when they changed. */
    metadata(finalized: number, height: number): Record<string, unknown> {
      const pruned = settings.unfinalizedBlocks || kept.some((b) => b.height > finalized) ? pruneFinalized(kept, finalized) : [];
      if (!changed && pruned.length === kept.length) return {};
      kept = pruned;
      changed = false;
      return { unfinalizedBlocks: toStoredUnfinalized(kept), lastFinalizedVerifiedHeight: Math.min(finalized, height) };
    },
  };
}

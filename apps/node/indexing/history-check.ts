import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';
import {
  chainHistoryMismatch,
  chainShorterNotice,
  fromStoredVerifiable,
  historyCheck,
  sameHistory,
  type VerifiableBlock,
} from '../../../domain/blocks/indexed-history.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { ForkWatch } from './fork-watch.ts';

export interface HistoryCheckDeps {
  source: Pick<ChainHeads, 'getBlockRefs'>;
  forks: Pick<ForkWatch, 'keeps' | 'findFork'>;
  log: Logger;
  /** rewinds to the common ancestor; the height to go on from */
  rollBack: (ancestor: number) => Promise<number>;
}

/**
 * The check, on each (re)start, that the chain still has the newest indexed block whose hash is
 * stored, or the node refuses to go on: the same genesis does not make the same chain (a restarted
 * dev chain, a reorganisation while stopped). A difference among the blocks kept for forks is the rollback's.
 */
export function createHistoryCheck(deps: HistoryCheckDeps) {
  // The indexed block a (re)start compares with the chain before indexing on; undefined once compared.
  let unverified: VerifiableBlock | undefined;
  let toldShorter = false;
  return {
    /** the stored `_metadata.lastVerifiableBlock`, read at each (re)start */
    load(stored: unknown): void {
      unverified = fromStoredVerifiable(stored);
    },
    /** whether the stored block is still to be compared (the chain had not reached it yet) */
    pending: (): boolean => unverified !== undefined,
    /** compares when the chain has the stored block; the height to go on from. `best`: a head height just read */
    async verify(next: number, best: number): Promise<number> {
      const check = historyCheck(unverified, best);
      if (check.kind === 'nothing-stored') return next;
      if (check.kind === 'chain-shorter') {
        // Nothing is indexed meanwhile: the next block is above the stored one, so above the chain's head.
        if (!toldShorter) deps.log.warn(chainShorterNotice(check.height, check.best), { event: 'chain-shorter', height: check.height, best: check.best });
        toldShorter = true;
        return next;
      }
      const stored = unverified!;
      const [now] = await deps.source.getBlockRefs([check.height]);
      if (now !== undefined && sameHistory(stored, now.hash)) {
        unverified = undefined;
        return next;
      }
      if (deps.forks.keeps()) {
        const ancestor = await deps.forks.findFork(best);
        if (ancestor !== undefined) return deps.rollBack(ancestor);
      }
      throw chainHistoryMismatch(stored, now?.hash ?? '(none)');
    },
  };
}

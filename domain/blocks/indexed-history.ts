import { IdxError } from '../errors.ts';

/**
 * The newest indexed block whose hash the node saw (`_metadata.lastVerifiableBlock`): the block
 * a restart compares with the chain. A block's hash covers all its ancestors, so one equal hash
 * says the chain still has everything indexed up to that height; a different one says the chain
 * is not the one indexed (a dev chain restarted with the same genesis, another network behind the
 * endpoint, or a reorganisation while the node was stopped).
 */
export interface VerifiableBlock {
  height: number;
  hash: string;
}

/** The stored value, or undefined when absent or not of this shape (a schema written before the key existed). */
export function fromStoredVerifiable(value: unknown): VerifiableBlock | undefined {
  const parsed = typeof value === 'string' ? safeJson(value) : value;
  if (typeof parsed !== 'object' || parsed === null) return undefined;
  const { height, hash } = parsed as Record<string, unknown>;
  if (typeof height !== 'number' || !Number.isSafeInteger(height) || height < 0 || typeof hash !== 'string' || hash === '') return undefined;
  return { height, hash };
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export type HistoryCheck =
  /** nothing to compare: no block stored (older data), or already compared */
  | { kind: 'nothing-stored' }
  /** the chain does not reach the stored block yet (a lagging endpoint, or a shorter chain): compare once it does */
  | { kind: 'chain-shorter'; height: number; best: number }
  /** ask the chain for its hash at this height */
  | { kind: 'ask'; height: number };

/** What to do with the stored block, given the chain's best height. */
export function historyCheck(stored: VerifiableBlock | undefined, best: number): HistoryCheck {
  if (stored === undefined) return { kind: 'nothing-stored' };
  if (stored.height > best) return { kind: 'chain-shorter', height: stored.height, best };
  return { kind: 'ask', height: stored.height };
}

/** Whether the chain's hash at the stored block's height is the stored one (hex case aside). */
export function sameHistory(stored: VerifiableBlock, chainHash: string): boolean {
  return stored.hash.toLowerCase() === chainHash.toLowerCase();
}

/** The refusal to index on: the rows would mix two chains' histories. */
export function chainHistoryMismatch(stored: VerifiableBlock, chainHash: string): IdxError {
  return new IdxError(
    'CHAIN_HISTORY_MISMATCH',
    `the chain's block ${stored.height} is ${chainHash.toLowerCase()}, but this database indexed block ${stored.height} as ${stored.hash.toLowerCase()}: ` +
      'the endpoint serves another chain with the same genesis (a restarted dev chain?), or the chain reorganised below the blocks kept for forks while the node was stopped, ' +
      'and indexing on would mix the two histories. Nothing was changed. Start over with `idx-node force-clean -f <project>`, ' +
      'or rewind to a height both chains share with `idx-node reindex -f <project> --targetHeight=<height>`',
  );
}

/** Logged once when the check waits for the chain to reach the stored block. */
export function chainShorterNotice(height: number, best: number): string {
  return (
    `the chain's newest block is ${best}, below block ${height} already indexed: indexing waits until the chain reaches it and then checks it is the chain indexed ` +
    '(a lagging endpoint catches up; a restarted dev chain needs `idx-node force-clean -f <project>`)'
  );
}

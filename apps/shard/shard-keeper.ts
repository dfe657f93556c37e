import type { ShardRange } from './shard-range.ts';

/**
 * Holds the shard's range for everyone in the process: readers see it at once, and changes (a
 * synced batch, a reorg, an admin call, a pruning step) run one at a time through `exclusive`, so
 * none of them works from a range another has just changed.
 */
export interface ShardKeeper {
  range(): ShardRange;
  /** only from inside `exclusive`, once the change is stored */
  set(range: ShardRange): void;
  exclusive<T>(fn: (range: ShardRange) => Promise<T>): Promise<T>;
}

export function createShardKeeper(initial: ShardRange): ShardKeeper {
  let current = initial;
  let queue: Promise<unknown> = Promise.resolve();
  return {
    range: () => current,
    set(range) {
      current = range;
    },
    exclusive(fn) {
      const run = queue.then(() => fn(current));
      queue = run.catch(() => undefined);
      return run;
    },
  };
}

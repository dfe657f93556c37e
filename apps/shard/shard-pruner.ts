import type { Logger } from '../../infra/logging/create-logger.ts';
import type { ShardStore } from '../../infra/postgres/shard-store.ts';
import type { ShardKeeper } from './shard-keeper.ts';

export interface ShardPruner {
  /** the range changed: look for data outside it */
  wake(): void;
  /** Prunes until `signal` aborts; resolves when it has. */
  run(signal: AbortSignal): Promise<void>;
  /** resolves once nothing outside the range is left (for tests) */
  idle(): Promise<void>;
}

/**
 * Removes the data outside `[tail, head]` (genesis stays) in the background, a chunk of blocks per
 * transaction, so a range change returns at once and syncing goes on between chunks. Nothing
 * outside the range is served meanwhile: reads are bounded by the range, not by what is stored.
 */
export function createShardPruner(options: { store: ShardStore; keeper: ShardKeeper; logger: Logger; chunk?: number }): ShardPruner {
  const { store, keeper } = options;
  const log = options.logger.child('prune');
  const chunk = options.chunk ?? 500;
  let wakeUp: (() => void) | undefined;
  let dirty = true;
  let idleWaiters: (() => void)[] = [];

  async function step(): Promise<number> {
    return keeper.exclusive(async (r) => {
      const below = await store.pruneBelow(r.tail, chunk);
      const above = r.head === null ? 0 : await store.pruneAbove(r.head, chunk);
      return below + above;
    });
  }

  return {
    wake() {
      dirty = true;
      wakeUp?.();
    },
    idle() {
      if (!dirty && wakeUp !== undefined) return Promise.resolve();
      return new Promise((resolve) => idleWaiters.push(resolve));
    },
    async run(signal) {
      const stop = () => wakeUp?.();
      signal.addEventListener('abort', stop, { once: true });
      try {
        while (!signal.aborted) {
          if (dirty) {
            dirty = false;
            let removed = 0;
            for (let n = await step(); n > 0 && !signal.aborted; n = await step()) removed += n;
            if (removed > 0)
              log.info(`removed ${removed} block${removed === 1 ? '' : 's'} outside the range [${keeper.range().tail}, ${keeper.range().head ?? 'unset'}]`);
          }
          if (!dirty) {
            const waiters = idleWaiters;
            idleWaiters = [];
            for (const w of waiters) w();
          }
          if (!dirty && !signal.aborted) await new Promise<void>((resolve) => (wakeUp = resolve));
          wakeUp = undefined;
        }
      } finally {
        signal.removeEventListener('abort', stop);
        for (const w of idleWaiters) w();
      }
    },
  };
}

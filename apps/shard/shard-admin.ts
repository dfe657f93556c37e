import { IdxError } from '../../domain/errors.ts';
import type { ShardStore } from '../../infra/postgres/shard-store.ts';
import type { ShardKeeper } from './shard-keeper.ts';
import type { ShardPruner } from './shard-pruner.ts';
import { refuseEnd, refuseStart, withEnd, withStart } from './shard-range.ts';

/** A range change the shard's range rules (docs/usage.md, idx-shard) do not allow; the message says which rule. */
export class ShardRangeRefused extends IdxError {
  constructor(message: string) {
    super('SHARD_RANGE_REFUSED', message);
    this.name = 'ShardRangeRefused';
  }
}

export interface ShardAdmin {
  /** `admin_setEndHeight`: null or 0 unsets the head */
  setEnd(head: number | null): Promise<void>;
  /** `admin_setStartHeight` */
  setStart(tail: number): Promise<void>;
}

/**
 * Range changes: checked, stored and in force when they return (reads are bounded by the range at
 * once); the data that falls outside is removed afterwards by the pruner.
 */
export function createShardAdmin(options: { store: ShardStore; keeper: ShardKeeper; pruner: ShardPruner }): ShardAdmin {
  const { store, keeper, pruner } = options;
  return {
    async setEnd(head) {
      await keeper.exclusive(async (r) => {
        const hasBlock = head !== null && head !== 0 && head < r.synced ? (await store.hashes([head])).has(head) : true;
        const refused = refuseEnd(r, head, hasBlock);
        if (refused !== undefined) throw new ShardRangeRefused(`admin_setEndHeight ${head}: ${refused}`);
        const next = withEnd(r, head);
        await store.setState({ head: next.head, synced: next.synced });
        keeper.set(next);
      });
      pruner.wake();
    },
    async setStart(tail) {
      await keeper.exclusive(async (r) => {
        const refused = refuseStart(r, tail);
        if (refused !== undefined) throw new ShardRangeRefused(`admin_setStartHeight ${tail}: ${refused}`);
        await store.setState({ tail });
        keeper.set(withStart(r, tail));
      });
      pruner.wake();
    },
  };
}

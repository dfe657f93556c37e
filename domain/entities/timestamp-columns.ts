import type { EntityModel } from './entity-model.ts';

/** The columns of idx's own insert/update times in one entity's table (absent with `--timestamp-field=false`). */
export interface TimestampColumns {
  created: string;
  updated: string;
}

const CREATED = 'created_at';
const UPDATED = 'updated_at';

/**
 * SubQuery projects declare `createdAt`/`updatedAt` fields of their own (ENS `Domain.createdAt:
 * BigInt!`), stored in `created_at`/`updated_at`. Where a field owns the name, idx's column of that
 * entity steps aside to `__created_at`/`__updated_at` (prefixed like `__block_range`); elsewhere it
 * keeps the plain name, so tables without such fields look as SubQuery's do.
 */
export function timestampColumns(entity: EntityModel): TimestampColumns {
  const owned = new Set(entity.fields.map((f) => f.column));
  return {
    created: owned.has(CREATED) ? `__${CREATED}` : CREATED,
    updated: owned.has(UPDATED) ? `__${UPDATED}` : UPDATED,
  };
}

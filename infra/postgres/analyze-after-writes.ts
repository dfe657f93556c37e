import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { execute, qualified } from './sql.ts';

/** PostgreSQL's autovacuum defaults: analyze a table once 50 rows plus 10% of it changed. */
const ANALYZE_THRESHOLD = 50;
const ANALYZE_SCALE = 0.1;

/**
 * ANALYZE for the embedded database, which has no autovacuum: after each flush, the entity tables
 * that changed by more than autovacuum's threshold since they were last analyzed are analyzed, so
 * `pg_class.reltuples` (idx-query's `rowCountEstimate`) and the planner's statistics follow the data
 * as they do on PostgreSQL. The cost stays proportional: each analysis samples at most 30,000 rows,
 * and the next one waits until another 10% of the table changed.
 */
export function createAnalyzeAfterWrites(input: { db: Kysely<any>; schema: string; model: SchemaModel }) {
  const tables = new Map(input.model.entities.map((e) => [e.name, e.table]));
  const changed = new Map<string, number>();
  const analyzedRows = new Map<string, number>();
  return {
    /** Call after `operations` committed. */
    async afterFlush(operations: readonly StoreOperation[]): Promise<void> {
      for (const op of operations) changed.set(op.entity, (changed.get(op.entity) ?? 0) + 1);
      for (const [entity, rows] of changed) {
        const table = tables.get(entity);
        if (table === undefined || rows < ANALYZE_THRESHOLD + ANALYZE_SCALE * (analyzedRows.get(entity) ?? 0)) continue;
        await execute(input.db, `analyze ${qualified(input.schema, table)}`);
        const [row] = await execute<{ rows: number }>(
          input.db,
          `select greatest(c.reltuples, 0)::float8 as rows from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relname = $2`,
          [input.schema, table],
        );
        analyzedRows.set(entity, Number(row?.rows ?? 0));
        changed.set(entity, 0);
      }
    },
  };
}

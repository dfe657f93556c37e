import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import type { StoredVersion } from '../../domain/testing/entity-snapshot.ts';
import { decodeRow } from './entity-read-sql.ts';
import { entityTableSql } from './entity-table-sql.ts';
import { BLOCK_RANGE } from './schema-ddl.ts';
import { execute } from './sql.ts';

/**
 * Every version of every entity of a schema, each with its fields as the store reads them back and
 * its block range (null without history), by entity then id then first block: what a range test's
 * snapshot holds. The insert/update time columns are left out (wall-clock time, not the chain's).
 * Meant for a test's throwaway store: it reads whole tables.
 */
export async function readEntityVersions(db: Kysely<any>, o: { schema: string; model: SchemaModel; historical: boolean }): Promise<StoredVersion[]> {
  const out: StoredVersion[] = [];
  for (const entity of [...o.model.entities].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    const t = entityTableSql(entity, o.model, o.schema, false, undefined);
    const range = o.historical ? `, lower(${BLOCK_RANGE})::text as __from, upper(${BLOCK_RANGE})::text as __to` : '';
    const order = o.historical ? `id, lower(${BLOCK_RANGE})` : 'id';
    const rows = await execute<Record<string, unknown>>(db, `select ${t.selectList}${range} from ${t.name} order by ${order}`);
    for (const r of rows) {
      const blockRange = o.historical ? ([Number(r.__from), r.__to === null ? null : Number(r.__to)] as const) : null;
      out.push({ entity: entity.name, id: String(r.id), data: decodeRow(t, r), blockRange });
    }
  }
  return out;
}

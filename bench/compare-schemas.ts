import type { Kysely } from 'kysely';
import { execute, qualified, quoteIdent, quoteLiteral } from '../infra/postgres/sql.ts';

/**
 * Compares the entity tables of an idx schema with those SubQuery's node wrote for the same project
 * and blocks: every version of every row (its columns, and the block range it is valid in), not
 * only the live ones. Bookkeeping columns of either side (idx's `__block_range` and timestamps,
 * SubQuery's `_id` and `_block_range`) are left out; timestamps are compared as instants.
 * Returns one line per difference, empty when the tables are equal. `oursDb` is idx's database when
 * it is another one (the embedded PGlite), `db` SubQuery's.
 */
export async function compareSchemas(
  db: Kysely<any>,
  ours: string,
  theirs: string,
  tables: readonly string[],
  oursDb: Kysely<any> = db,
): Promise<{ rows: number; differences: string[] }> {
  const differences: string[] = [];
  let rows = 0;
  for (const table of tables) {
    const columns = await entityColumns(db, theirs, table);
    const oursColumns = new Set((await entityColumns(oursDb, ours, table)).map((c) => c.name));
    const missing = columns.filter((c) => !oursColumns.has(c.name)).map((c) => c.name);
    if (missing.length > 0) differences.push(`${table}: idx has no column ${missing.join(', ')}`);
    const shared = columns.filter((c) => oursColumns.has(c.name));
    const select = (schema: string, range: string) =>
      `select ${shared.map((c) => `${asText(c)} as ${quoteIdent(c.name)}`).join(', ')}, lower(${range})::text as "from", upper(${range})::text as "to"
         from ${qualified(schema, table)} order by id, lower(${range})`;
    const a = await execute(oursDb, select(ours, '__block_range'));
    const b = await execute(db, select(theirs, '_block_range'));
    rows += b.length;
    if (a.length !== b.length) differences.push(`${table}: idx has ${a.length} versions, SubQuery ${b.length}`);
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const left = JSON.stringify(a[i]);
      const right = JSON.stringify(b[i]);
      if (left !== right) {
        differences.push(`${table}: idx ${left}\n${' '.repeat(table.length + 2)}SubQuery ${right}`);
        if (differences.length > 20) return { rows, differences };
      }
    }
  }
  return { rows, differences };
}

interface Column {
  name: string;
  type: string;
}

async function entityColumns(db: Kysely<any>, schema: string, table: string): Promise<Column[]> {
  const columns = await execute<Column>(
    db,
    `select column_name as name, data_type as type from information_schema.columns
      where table_schema = ${quoteLiteral(schema)} and table_name = ${quoteLiteral(table)} order by column_name`,
  );
  if (columns.length === 0) throw new Error(`${schema}.${table} does not exist`);
  return columns.filter((c) => !['_id', '_block_range', '__block_range', '__created_at', '__updated_at'].includes(c.name));
}

function asText(c: Column): string {
  const col = quoteIdent(c.name);
  // compared as instants, to the millisecond: both write timestamp without time zone holding UTC, but idx's own
  // created_at/updated_at are timestamptz, and a schema of an earlier idx held Date as timestamptz too
  if (c.type.startsWith('timestamp')) return `(extract(epoch from ${col}) * 1000)::bigint::text`;
  return `${col}::text`;
}

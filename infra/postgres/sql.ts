import { createHash } from 'node:crypto';
import { CompiledQuery, type Kysely, type Transaction } from 'kysely';
import { MAX_IDENTIFIER_BYTES } from '../../domain/entities/names.ts';

/** Anything kysely runs queries on: the database or an open transaction. */
export type Executor = Kysely<any> | Transaction<any>;

/** Runs one raw statement (several when there are no parameters) and returns its rows. */
export async function execute<R = Record<string, unknown>>(db: Executor, text: string, params: readonly unknown[] = []): Promise<R[]> {
  const result = await db.executeQuery<R>(CompiledQuery.raw(text, params as unknown[]));
  return result.rows as R[];
}

/** Like {@link execute}, answering the number of rows written. */
export async function executeCount(db: Executor, text: string, params: readonly unknown[] = []): Promise<number> {
  const result = await db.executeQuery(CompiledQuery.raw(text, params as unknown[]));
  return Number(result.numAffectedRows ?? 0n);
}

export function quoteIdent(name: string): string {
  return `"${name.replace(/"/g, '""')}"`;
}

export function qualified(schema: string, name: string): string {
  return `${quoteIdent(schema)}.${quoteIdent(name)}`;
}

export function quoteLiteral(value: string): string {
  return `'${value.replace(/'/g, "''")}'`;
}

const MAX_IDENT = MAX_IDENTIFIER_BYTES;

/**
 * An index name unique within the schema. PostgreSQL cuts identifiers at 63 bytes, which could
 * make two long names collide, so long names end in a hash of the full name instead.
 */
export function indexName(table: string, columns: readonly string[], suffix: string): string {
  const full = `${table}_${columns.join('_')}_${suffix}`;
  if (Buffer.byteLength(full) <= MAX_IDENT) return full;
  const hash = createHash('sha256').update(full).digest('hex').slice(0, 10);
  return `${Buffer.from(full)
    .subarray(0, MAX_IDENT - 12)
    .toString()
    .replace(/\uFFFD+$/, '')}_${hash}`;
}

/** Whether `schema.table` has the column (for DDL that depends on what an earlier run made). */
export async function hasColumn(db: Executor, schema: string, table: string, column: string): Promise<boolean> {
  const rows = await execute(db, `select 1 from information_schema.columns where table_schema = $1 and table_name = $2 and column_name = $3`, [
    schema,
    table,
    column,
  ]);
  return rows.length > 0;
}

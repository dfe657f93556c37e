import { quoteIdent } from '../sql.ts';

/** How a column is filtered, ordered and shown in GraphQL. `bytes` (bytea) shows and filters as 0x-hex text. */
export type ValueKind = 'string' | 'bytes' | 'int' | 'float' | 'bigfloat' | 'boolean' | 'datetime' | 'json' | 'enum';

/** What a read needs of a stored column: its name and how its values come out. */
export interface ReadColumn {
  /** SQL column: `block_height`, `from_id` */
  column: string;
  kind: ValueKind;
  list: boolean;
}

/** What a read needs of an entity table. */
export interface ReadTable {
  /** `"schema"."transfers"` */
  table: string;
  historical: boolean;
  /** `id` first, then every stored field */
  columns: readonly ReadColumn[];
}

/**
 * The SELECT expression of a column as GraphQL shows it: numbers that JavaScript cannot hold
 * exactly (numeric) and enum arrays come as text, which the drivers pass through unchanged, and
 * bytes as 0x-hex. (Timestamps, UTC without a zone, the drivers read as UTC: utc-timestamps.ts.)
 */
export function selectExpression(alias: string, c: ReadColumn, prefix = ''): string {
  const ref = `${alias}.${quoteIdent(c.column)}`;
  const as = ` as ${quoteIdent(prefix + c.column)}`;
  if (c.list && c.kind === 'enum') return `${ref}::text[]${as}`;
  if (c.kind === 'bigfloat') return `${ref}::text${as}`;
  if (c.kind === 'bytes') return `${hexOf(ref)}${as}`;
  return prefix === '' ? ref : `${ref}${as}`;
}

/** a bytea value as GraphQL shows it: lowercase 0x-hex */
export function hexOf(ref: string): string {
  return `('0x' || encode(${ref}, 'hex'))`;
}

/** every column of `t`, each named `<prefix><column>` */
export function selectList(alias: string, t: Pick<ReadTable, 'columns'>, prefix = ''): string {
  return t.columns.map((c) => selectExpression(alias, c, prefix)).join(', ');
}

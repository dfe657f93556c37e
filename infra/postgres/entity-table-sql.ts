import type { EntityModel, SchemaModel } from '../../domain/entities/entity-model.ts';
import { CHAIN_COLUMN } from '../../domain/entities/chain-tables.ts';
import { timestampColumns } from '../../domain/entities/timestamp-columns.ts';
import { copyField } from './copy-in.ts';
import { resolveColumns, type ColumnCodec } from './column-codec.ts';
import { BLOCK_RANGE } from './schema-ddl.ts';
import { qualified, quoteIdent, quoteLiteral } from './sql.ts';

/** One entity's table as the store writes and reads it: its columns' codecs and the statements' text. */
export interface EntityTable {
  entity: EntityModel;
  name: string;
  columns: ColumnCodec[];
  /** field name, property name or column name → codec; `id` → null */
  lookup: Map<string, ColumnCodec | null>;
  selectList: string;
  /** historical: closes the live versions of ids at heights */
  closeSql: string;
  /** ... and replaces those that began at that very height */
  closeReplaceSql: string;
  /** historical: new versions, `copy … from stdin` (rows from `copyChunks`) */
  copySql: string;
  /** the chain column's COPY field, with its tab, or '' */
  chainField: string;
  /** plain: upsert from one text[] per column */
  upsertSql: string;
  deleteSql: string;
}

/** The statements' text for one entity's table, made once per store. */
export function entityTableSql(entity: EntityModel, model: SchemaModel, schema: string, timestampField: boolean, chainId: string | undefined): EntityTable {
  const name = qualified(schema, entity.table);
  const columns = resolveColumns(entity, model, schema);
  // The chain is the same for every row: a literal, so the statements' parameters stay as they are.
  const chainCol = chainId === undefined ? '' : `, ${CHAIN_COLUMN}`;
  const chainVal = chainId === undefined ? '' : `, ${quoteLiteral(chainId)}`;
  const lookup = new Map<string, ColumnCodec | null>([['id', null]]);
  for (const c of columns) {
    lookup.set(c.field.name, c);
    lookup.set(c.property, c);
    lookup.set(c.column, c);
  }
  const colNames = columns.map((c) => quoteIdent(c.column));
  const aliases = columns.map((_, i) => `c${i}`);
  const casts = columns.map((c, i) => `u.c${i}::${c.sqlType}`);
  const textArrays = columns.map((_, i) => `$${i + 2}::text[]`);
  const copySql = `copy ${name} (id${colNames.map((c) => `, ${c}`).join('')}, ${BLOCK_RANGE}${chainCol}) from stdin`;
  const chainField = chainId === undefined ? '' : `\t${copyField(chainId)}`;
  const close = (replace: boolean) =>
    `with u as (select * from unnest($1::text[], $2::int8[]) as u(id, h))` +
    // A version born at the very height being written is replaced, not left as an empty range.
    (replace ? `, replaced as (delete from ${name} t using u where t.id = u.id and upper_inf(t.${BLOCK_RANGE}) and lower(t.${BLOCK_RANGE}) = u.h)` : '') +
    ` update ${name} t set ${BLOCK_RANGE} = int8range(lower(t.${BLOCK_RANGE}), u.h) from u ` +
    `where t.id = u.id and upper_inf(t.${BLOCK_RANGE}) and lower(t.${BLOCK_RANGE}) < u.h`;
  // idx's update time (plain tables; a historical version is a new row, stamped by the column default)
  const touch = timestampField ? `, ${quoteIdent(timestampColumns(entity).updated)} = now()` : '';
  const upsertSql =
    `insert into ${name} (id${colNames.map((c) => `, ${c}`).join('')}${chainCol}) ` +
    `select u.id${casts.map((c) => `, ${c}`).join('')}${chainVal} ` +
    `from unnest($1::text[]${textArrays.map((a) => `, ${a}`).join('')}) as u(id${aliases.map((a) => `, ${a}`).join('')}) ` +
    `on conflict (id) do update set ${[...colNames.map((c) => `${c} = excluded.${c}`), 'id = excluded.id'].join(', ')}${touch}`;
  const deleteSql = `delete from ${name} where id = any($1::text[])`;
  const selectList = ['id', ...columns.map((c) => c.select)].join(', ');
  return { entity, name, columns, lookup, selectList, closeSql: close(false), closeReplaceSql: close(true), copySql, chainField, upsertSql, deleteSql };
}

import type { EntityData, FieldFilter, PoiRow, QueryOptions } from '../../domain/entities/entity-store.ts';
import { IdxError } from '../../domain/errors.ts';
import type { ColumnCodec } from './column-codec.ts';
import type { EntityTable } from './entity-table-sql.ts';
import { textArray } from './pg-arrays.ts';
import { quoteIdent, quoteLiteral } from './sql.ts';
import { visibleVersions } from './visible-versions.ts';

/** A read: its text and parameters. */
export interface ReadSql {
  sql: string;
  params: unknown[];
}

/** The versions a read sees: the live ones, or those alive at `atHeight` (pushed onto `params`); plain tables have one. */
export function rangeCondition(historical: boolean, params: unknown[], atHeight: number | undefined): string {
  if (!historical || atHeight === undefined) return visibleVersions(historical, undefined, undefined);
  checkHeight(atHeight);
  params.push(atHeight);
  return visibleVersions(true, undefined, `$${params.length}::int8`);
}

function column(t: EntityTable, field: string): { ref: string; codec: ColumnCodec | null } {
  if (!t.lookup.has(field)) {
    throw new IdxError('STORE_UNKNOWN_FIELD', `${t.entity.name} has no stored field "${field}"`);
  }
  const codec = t.lookup.get(field)!;
  return { ref: codec === null ? 'id' : quoteIdent(codec.column), codec };
}

function encodeFilterValue(t: EntityTable, codec: ColumnCodec | null, value: unknown): string {
  if (codec === null) {
    if (typeof value !== 'string') throw new IdxError('STORE_INVALID_VALUE', `${t.entity.name}.id: expected a string, got ${String(value)}`);
    return value;
  }
  return codec.encode(value)!;
}

/** The entity types whose table holds no row at all (no version of any height, of any chain), in one statement. */
export function emptyTablesSql(tables: Iterable<EntityTable>): string | undefined {
  const parts = [...tables].map((t) => `select ${quoteLiteral(t.entity.name)} as entity where not exists (select 1 from ${t.name})`);
  return parts.length === 0 ? undefined : parts.join(' union all ');
}

/** One entity by id. */
export function getByIdSql(t: EntityTable, historical: boolean, id: string, atHeight: number | undefined): ReadSql {
  const params: unknown[] = [id];
  return { sql: `select ${t.selectList} from ${t.name} where id = $1 and ${rangeCondition(historical, params, atHeight)} limit 1`, params };
}

/** `getByFields`: the filters as conditions (values as parameters), then order, limit and offset. */
export function queryByFieldsSql(
  t: EntityTable,
  historical: boolean,
  filters: readonly FieldFilter[],
  opts: QueryOptions,
  atHeight: number | undefined,
): ReadSql {
  const entity = t.entity.name;
  const params: unknown[] = [];
  const where: string[] = [];
  for (const [field, op, value] of filters) {
    const { ref, codec } = column(t, field);
    const type = codec?.sqlType ?? 'text';
    if (op === '=' || op === '!=') {
      if (value === null || value === undefined) {
        where.push(`${ref} is ${op === '=' ? '' : 'not '}null`);
        continue;
      }
      params.push(encodeFilterValue(t, codec, value));
      // through text: PGlite would otherwise want a bytea parameter as bytes
      where.push(`${ref} ${op === '=' ? '=' : '<>'} $${params.length}::text::${type}`);
    } else if (op === 'in' || op === '!in') {
      if (!Array.isArray(value)) throw new IdxError('STORE_INVALID_VALUE', `${entity}.${field} ${op}: expected a list of values`);
      if (codec?.field.list) throw new IdxError('STORE_INVALID_VALUE', `${entity}.${field} is a list; "${op}" compares single values`);
      params.push(textArray(value.map((v) => (v === null || v === undefined ? null : encodeFilterValue(t, codec, v)))));
      const test = `${ref} = any($${params.length}::text[]::${type}[])`;
      // `!in` excludes nulls, as SQL's NOT IN (and SubQuery's store) does.
      where.push(op === 'in' ? test : `not ${test}`);
    } else {
      throw new IdxError('STORE_INVALID_VALUE', `unknown filter operator "${String(op)}" on ${entity}.${field} (use =, !=, in or !in)`);
    }
  }
  where.push(rangeCondition(historical, params, atHeight));
  const order = column(t, opts.orderBy ?? 'id').ref;
  const dir = (opts.orderDirection ?? 'ASC').toUpperCase();
  if (dir !== 'ASC' && dir !== 'DESC') throw new IdxError('STORE_INVALID_VALUE', `orderDirection must be ASC or DESC, got "${opts.orderDirection}"`);
  let sql = `select ${t.selectList} from ${t.name} where ${where.join(' and ')} order by ${order} ${dir}${order === 'id' ? '' : ', id'}`;
  if (opts.limit !== undefined) {
    checkCount('limit', opts.limit);
    sql += ` limit ${opts.limit}`;
  }
  if (opts.offset !== undefined) {
    checkCount('offset', opts.offset);
    sql += ` offset ${opts.offset}`;
  }
  return { sql, params };
}

/** A row as the entity's data. */
export function decodeRow(t: EntityTable, row: Record<string, unknown>): EntityData {
  const data: EntityData = { id: row.id };
  for (const c of t.columns) data[c.property] = c.decode(row[c.column]);
  return data;
}

// The height goes out as text under its own name: `order by id` must sort the bigint, not the text ('9' > '10').
export const POI_COLUMNS = 'id::text as height, chain_block_hash, hash, parent_hash, operation_hash_root';

/** A `_poi` row read with POI_COLUMNS. */
export function toPoiRow(r: Record<string, unknown>): PoiRow {
  const bytes = (v: unknown) => (v === null || v === undefined ? null : new Uint8Array(v as Uint8Array));
  return {
    id: Number(r.height),
    chainBlockHash: bytes(r.chain_block_hash),
    hash: bytes(r.hash),
    parentHash: bytes(r.parent_hash),
    operationHashRoot: bytes(r.operation_hash_root),
  };
}

export function checkHeight(height: number): void {
  if (!Number.isSafeInteger(height) || height < 0) throw new IdxError('STORE_INVALID_VALUE', `a block height must be a whole number ≥ 0, got ${height}`);
}

function checkCount(what: string, n: number): void {
  if (!Number.isSafeInteger(n) || n < 0) throw new IdxError('STORE_INVALID_VALUE', `${what} must be a whole number ≥ 0, got ${n}`);
}

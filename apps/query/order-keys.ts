import type { SqlOrderKey } from '../../infra/postgres/read/order-sql.ts';
import { badInput } from './compile-filter.ts';
import type { EntityTable, QueryColumn } from './entity-tables.ts';
import { relatedOrders } from './related-orders.ts';
import { textDepth } from './request-limits.ts';

/** One key of a page's ORDER BY (its SQL: infra/postgres/read/order-sql.ts). */
export interface OrderKey extends SqlOrderKey {
  column: QueryColumn;
}

/** What orderKeys needs beyond the table: related tables, the height, whether a search ranks the rows. */
export interface OrderContext {
  tables?: ReadonlyMap<string, EntityTable>;
  height?: bigint;
  ranked?: boolean;
}

export type NullOrder = 'NULLS_FIRST' | 'NULLS_LAST';

/** A text search's rank of a row (`ts_rank`), which the search's FROM selects as `__rank`. */
export const SEARCH_RANK: QueryColumn = {
  name: '__rank',
  column: '__rank',
  upper: 'SEARCH_RANK',
  kind: 'float',
  list: false,
  nullable: false,
  sqlType: 'real',
};

/** Columns that can order a page: single values, JSON ones (SubQuery's lists too) in jsonb's order, as PostGraphile orders them; not enum arrays. */
export function orderable(c: QueryColumn): boolean {
  return !c.list;
}

/**
 * The ORDER BY of `orderBy` enum values. `id` always ends the list, so that every row has one
 * place and cursors are exact; it takes the direction of the key before it, which lets one index
 * on `(column, id)` serve both directions. A text search without `orderBy` goes best rank first.
 */
export function orderKeys(
  t: EntityTable,
  orderBy: readonly string[] | null | undefined,
  nulls: NullOrder | null | undefined,
  { tables, height, ranked = false }: OrderContext = {},
): OrderKey[] {
  const keys: OrderKey[] = [];
  const nullsFirst = (desc: boolean) => (nulls === 'NULLS_FIRST' ? true : nulls === 'NULLS_LAST' ? false : desc);
  const push = (column: QueryColumn, desc: boolean, expr?: OrderKey['expr']) => {
    if (!keys.some((k) => k.column.upper === column.upper)) keys.push({ column, desc, nullsFirst: nullsFirst(desc), ...(expr && { expr }) });
  };
  if (ranked && orderBy == null) push(SEARCH_RANK, true);
  for (const value of orderBy ?? (ranked ? [] : ['PRIMARY_KEY_ASC'])) {
    if (value === 'NATURAL') continue;
    const m = /^(.*)_(ASC|DESC)$/.exec(value);
    if (m === null) throw badInput(`${t.names.orderBy}: unknown value ${value}`);
    const desc = m[2] === 'DESC';
    const related = tables === undefined ? undefined : relatedOrders(t, tables).get(m[1]!);
    if (related !== undefined) {
      push(related.column, desc, (alias) => related.sql(alias, height));
      continue;
    }
    const column = m[1] === 'PRIMARY_KEY' ? t.byName.get('id')! : t.columns.find((c) => c.upper === m[1] && orderable(c));
    if (column === undefined) throw badInput(`${t.names.orderBy}: unknown value ${value}`);
    push(column, desc);
  }
  push(t.byName.get('id')!, keys.length > 0 ? keys[keys.length - 1]!.desc : false);
  return keys;
}

export function reverseKeys(keys: readonly OrderKey[]): OrderKey[] {
  return keys.map((k) => ({ ...k, desc: !k.desc, nullsFirst: !k.nullsFirst }));
}

function signature(keys: readonly OrderKey[]): string {
  return keys.map((k) => `${k.column.upper}${k.desc ? '-' : '+'}`).join(',');
}

/** An opaque cursor: base64 of the order and the row's values of its keys. */
export function encodeCursor(keys: readonly OrderKey[], row: Record<string, unknown>): string {
  const values = keys.map((_k, i) => (row[`__k${i}`] ?? null) as string | null);
  return Buffer.from(JSON.stringify([signature(keys), values])).toString('base64');
}

export function decodeCursor(keys: readonly OrderKey[], cursor: string, arg: string): (string | null)[] {
  const parsed = parseCursorJson(cursor);
  if (parsed === undefined) throw badInput(`${arg}: not a cursor of this service`);
  if (!Array.isArray(parsed) || parsed.length !== 2 || typeof parsed[0] !== 'string' || !Array.isArray(parsed[1])) {
    throw badInput(`${arg}: not a cursor of this service`);
  }
  if (parsed[0] !== signature(keys) || parsed[1].length !== keys.length) {
    throw badInput(`${arg}: the cursor was made for another orderBy; use cursors with the orderBy they came from`);
  }
  return parsed[1] as (string | null)[];
}

/**
 * The JSON inside a cursor (base64), or undefined when it is none: a cursor nests two levels
 * (`["<order>", [values]]`), and the text is measured before JSON.parse, which takes seconds over a
 * megabyte of `[`.
 */
export function parseCursorJson(cursor: string): unknown {
  const text = Buffer.from(cursor, 'base64').toString('utf8');
  if (textDepth(text) > 2) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

import { AGGREGATE_FNS, orderingAggregateSql, type AggregateFn } from '../../infra/postgres/read/aggregate-expressions.ts';
import { columnRef } from '../../infra/postgres/read/column-ref.ts';
import { relatedRowCount, relatedRowsValue, type RelationLink } from '../../infra/postgres/read/related-rows.ts';
import type { EntityTable, QueryColumn } from './entity-tables.ts';
import { constantCase, pluralize, singularize } from './postgraphile-inflection.ts';

/**
 * An `orderBy` value on a related entity, as `@graphile-contrib/pg-order-by-related` (in SubQuery's
 * query service) names them: a column of the row a relation points to,
 * `ACCOUNT_BY_FROM_ID__BALANCE_ASC`, or the number of rows pointing back, `TRANSFERS_BY_FROM_ID__COUNT_DESC` (and, as
 * SubQuery's aggregate orders name it, `SENT_TRANSFERS_COUNT_DESC`).
 */
export interface RelatedOrder {
  /** the enum value without `_ASC`/`_DESC` */
  stem: string;
  /** the value's type, for cursors: the related column, or a count */
  column: QueryColumn;
  /** the value for the row `alias`, read at `height` (the connection's) */
  sql(alias: string, height: bigint | undefined): string;
}

const COUNT: Omit<QueryColumn, 'name' | 'column' | 'upper'> = { kind: 'int', list: false, nullable: false, sqlType: 'int8' };

const cache = new WeakMap<EntityTable, Map<string, RelatedOrder>>();

/** Every related order value of `t`, by stem. */
export function relatedOrders(t: EntityTable, tables: ReadonlyMap<string, EntityTable>): Map<string, RelatedOrder> {
  const known = cache.get(t);
  if (known !== undefined) return known;
  const out = new Map<string, RelatedOrder>();
  for (const r of t.forward) {
    const other = tables.get(r.entity)!;
    const link: RelationLink = { direction: 'forward', column: r.column };
    const prefix = constantCase(`${singularize(other.entity.table)}-by-${r.column}`);
    for (const c of other.columns) {
      if (c.list) continue;
      const stem = `${prefix}__${c.upper}`;
      out.set(stem, {
        stem,
        // no related row reads as NULL, whatever the column says
        column: { ...c, name: stem, column: stem, upper: stem, nullable: true },
        sql: (alias, height) => relatedRowsValue((row) => columnRef(row, c.column), alias, other, link, height),
      });
    }
  }
  for (const r of t.backward) {
    const other = tables.get(r.entity)!;
    const link: RelationLink = { direction: 'backward', column: r.column };
    const count = (stem: string): RelatedOrder => ({
      stem,
      column: { ...COUNT, name: stem, column: stem, upper: stem },
      sql: (alias, height) => relatedRowCount(alias, other, link, height),
    });
    const stem = `${constantCase(`${pluralize(singularize(other.entity.table))}-by-${r.column}`)}__COUNT`;
    out.set(stem, count(stem));
    if (!r.many) continue;
    // SubQuery's own aggregate orders name the same count after the relation: `SENT_TRANSFERS_COUNT`
    out.set(constantCase(`${r.name}-count`), count(constantCase(`${r.name}-count`)));
    // … and an aggregate of a column of those rows: `SENT_TRANSFERS_SUM_VALUE`, `SENT_TRANSFERS_MAX_BLOCK_HEIGHT`
    for (const fn of AGGREGATE_FNS) {
      for (const c of other.columns) {
        const type = aggregateOrderType(fn, c);
        if (type === undefined) continue;
        const stem = constantCase(`${r.name}-${fn}-${c.column}`);
        out.set(stem, {
          stem,
          column: { ...c, ...type, name: stem, column: stem, upper: stem, nullable: fn !== 'distinctCount' && fn !== 'sum' },
          sql: (alias, height) => relatedRowsValue((row) => orderingAggregateSql(fn, c, row), alias, other, link, height),
        });
      }
    }
  }
  // a column of the row's own keeps its name (a field `sentCount` beside a relation `sent`): PostGraphile would not
  // build the schema at all, refusing the two names
  for (const c of t.columns) out.delete(c.upper);
  cache.set(t, out);
  return out;
}

/**
 * The type an aggregate of `c` orders by, or undefined where it has no meaning (SubQuery offers every
 * function on every column, and PostgreSQL refuses the sum of a text): counts of any column; least
 * and greatest of an ordered single value; sums, means and deviations of numbers.
 */
function aggregateOrderType(fn: AggregateFn, c: QueryColumn): Pick<QueryColumn, 'kind' | 'sqlType' | 'list'> | undefined {
  if (fn === 'distinctCount') return { kind: 'int', sqlType: 'int8', list: false };
  if (c.list || c.kind === 'json' || c.kind === 'boolean') return undefined;
  if (fn === 'min' || fn === 'max') return { kind: c.kind, sqlType: c.sqlType, list: false };
  if (c.kind !== 'int' && c.kind !== 'float' && c.kind !== 'bigfloat') return undefined;
  return { kind: 'bigfloat', sqlType: 'numeric', list: false };
}

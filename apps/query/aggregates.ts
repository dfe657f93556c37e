import { GraphQLError, type GraphQLResolveInfo } from 'graphql';
import { subfields } from './collect-fields.ts';
import { badInput } from './compile-filter.ts';
import type { ConnectionSource } from './connection-source.ts';
import { aggregateItems, aggregateSelect, groupedAggregateSelect } from '../../infra/postgres/read/aggregate-reads.ts';
import { AGGREGATE_FNS, aggregateSql, groupingSql, type AggregateFn } from '../../infra/postgres/read/aggregate-expressions.ts';
import type { EntityTable, QueryColumn } from './entity-tables.ts';
import { havingAll, havingComparison, havingList, isHavingOperator } from '../../infra/postgres/read/having-conditions.ts';
import { SqlParams } from '../../infra/postgres/read/sql-params.ts';

export const UNSAFE_FNS: ReadonlySet<AggregateFn> = new Set(AGGREGATE_FNS.filter((f) => f !== 'distinctCount'));

export function unsafeError(fn: string): GraphQLError {
  return new GraphQLError(`the aggregate "${fn}" is disabled: sum, min, max, average, stddev and variance aggregates need idx-query --unsafe`, {
    extensions: { code: 'UNSAFE_AGGREGATE_DISABLED', flag: '--unsafe' },
  });
}

const numeric = (c: QueryColumn) => !c.list && (c.kind === 'int' || c.kind === 'float' || c.kind === 'bigfloat');

/** The columns a function applies to: numbers for the arithmetic ones, every column for distinctCount. */
export function aggregateColumns(t: EntityTable, fn: AggregateFn): QueryColumn[] {
  if (fn === 'distinctCount') return t.columns;
  return t.columns.filter(numeric);
}

/**
 * The GraphQL type of an aggregate, as pg-aggregates types it in SubQuery's service: a sum is never
 * null (0 over no rows) and widens (Int to BigInt); Float columns stay Float; the rest is BigFloat.
 */
export function aggregateType(fn: AggregateFn, c: QueryColumn, typeOf: (c: QueryColumn) => string): string {
  if (fn === 'distinctCount') return 'BigInt';
  if (fn === 'sum') return c.kind === 'int' ? 'BigInt!' : c.kind === 'float' ? 'Float!' : 'BigFloat!';
  if (fn === 'min' || fn === 'max') return typeOf(c);
  return c.kind === 'float' ? 'Float' : 'BigFloat';
}

/**
 * The columns `having` compares aggregates of, for every function alike (pg-aggregates'): numbers
 * and timestamps, each with the filter of its own type (`HavingIntFilter`, `HavingDatetimeFilter`, …).
 */
export function havingColumns(t: EntityTable): QueryColumn[] {
  return t.columns.filter((c) => numeric(c) || (!c.list && c.kind === 'datetime'));
}

export const HAVING_FILTER: Partial<Record<QueryColumn['kind'], { name: string; operand: string }>> = {
  int: { name: 'HavingIntFilter', operand: 'Int' },
  float: { name: 'HavingFloatFilter', operand: 'Float' },
  bigfloat: { name: 'HavingBigfloatFilter', operand: 'BigFloat' },
  datetime: { name: 'HavingDatetimeFilter', operand: 'Datetime' },
};

/** The groupBy enum values of an entity: each column but an enum array (JSON ones too, as pg-aggregates groups them), and timestamps truncated to the hour or day. */
export function groupByValues(t: EntityTable): Map<string, (alias: string) => string> {
  const out = new Map<string, (alias: string) => string>();
  for (const c of t.columns) {
    if (c.list) continue;
    out.set(c.upper, (a) => groupingSql(a, c));
    if (c.kind === 'datetime') {
      out.set(`${c.upper}_TRUNCATED_TO_HOUR`, (a) => groupingSql(a, c, 'hour'));
      out.set(`${c.upper}_TRUNCATED_TO_DAY`, (a) => groupingSql(a, c, 'day'));
    }
  }
  return out;
}

interface Wanted {
  count: boolean;
  columns: { fn: AggregateFn; column: QueryColumn }[];
}

/** What the selection under an `aggregates` field asks for; unsafe functions are left out unless allowed. */
function wanted(src: ConnectionSource, info: GraphQLResolveInfo): Wanted {
  const fields = subfields(info.fieldNodes, info);
  const out: Wanted = { count: fields.has('count'), columns: [] };
  for (const fn of AGGREGATE_FNS) {
    const nodes = fields.get(fn);
    if (nodes === undefined) continue;
    if (UNSAFE_FNS.has(fn) && !src.ctx.settings.unsafe) continue; // the field's resolver reports it
    const names = subfields(nodes, info);
    for (const c of aggregateColumns(src.t, fn)) if (names.has(c.name)) out.columns.push({ fn, column: c });
  }
  return out;
}

export type AggregateResult = Record<string, unknown>;

function selectWanted(w: Wanted): string {
  return aggregateItems(w.columns.map((x) => aggregateSql(x.fn, x.column, 't', true)));
}

function shape(w: Wanted, row: Record<string, unknown> | undefined): AggregateResult {
  const out: AggregateResult = { count: Number(row?.__count ?? 0) };
  w.columns.forEach((x, i) => {
    const byColumn = (out[x.fn] ??= {}) as Record<string, unknown>;
    // a parent with no related rows has no row here: its sums are 0, as over no rows
    byColumn[x.column.name] = row?.[`a${i}`] ?? (x.fn === 'sum' ? (x.column.kind === 'float' ? 0 : '0') : null);
  });
  return out;
}

/** `aggregates` of a connection: one statement (for all parents of a nested connection). */
export async function resolveAggregates(src: ConnectionSource, info: GraphQLResolveInfo): Promise<AggregateResult> {
  const w = wanted(src, info);
  if (src.parent === undefined) {
    const params = new SqlParams();
    const { from } = src.aggregateFrom(params, undefined);
    const [row] = await src.ctx.sql(aggregateSelect(selectWanted(w), from), params.values);
    return shape(w, row);
  }
  const key = `${src.nestedBatchKey('aggregates')}:${JSON.stringify(w.columns.map((x) => [x.fn, x.column.column]))}`;
  const row = await src.ctx.batcher.load<Record<string, unknown>>(key, src.parent.id, async (ids) => {
    const params = new SqlParams();
    const { from, parentCol } = src.aggregateFrom(params, ids);
    const rows = await src.ctx.sql(aggregateSelect(selectWanted(w), from, parentCol), params.values);
    return new Map(rows.map((r) => [r.__parent as string, r]));
  });
  return shape(w, row);
}

function compileHaving(src: ConnectionSource, having: Record<string, unknown> | null | undefined, params: SqlParams): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(having ?? {})) {
    if (value == null) continue;
    if (key === 'AND' || key === 'OR') {
      const list = havingList(
        key,
        (value as Record<string, unknown>[]).map((h) => compileHaving(src, h, params)),
      );
      if (list !== undefined) parts.push(list);
      continue;
    }
    const fn = key as AggregateFn;
    if (!AGGREGATE_FNS.includes(fn)) throw badInput(`having: unknown aggregate ${key}`);
    if (UNSAFE_FNS.has(fn) && !src.ctx.settings.unsafe) throw unsafeError(fn);
    for (const [name, filter] of Object.entries(value as Record<string, Record<string, unknown> | null>)) {
      const c = havingColumns(src.t).find((x) => x.name === name);
      if (c === undefined || filter == null) continue;
      // the input offers every function on a timestamp, as SubQuery's does; only min and max of one are times
      if (c.kind === 'datetime' && fn !== 'min' && fn !== 'max')
        throw badInput(`having: ${fn} of ${name}, a Datetime, is not a time to compare with; use min or max`);
      for (const [op, operand] of Object.entries(filter)) {
        if (operand == null) continue;
        if (!isHavingOperator(op)) throw badInput(`having: unknown operator ${op}`);
        parts.push(havingComparison(fn, c, op, String(operand), params));
      }
    }
  }
  return havingAll(parts);
}

/** `groupedAggregates(groupBy, having)`: one row per group, with its `keys`. */
export async function resolveGroupedAggregates(
  src: ConnectionSource,
  args: { groupBy: string[]; having?: Record<string, unknown> | null },
  info: GraphQLResolveInfo,
): Promise<AggregateResult[]> {
  if (args.groupBy.length === 0) throw badInput('groupBy needs at least one value');
  const values = groupByValues(src.t);
  const exprs = args.groupBy.map((g) => {
    const e = values.get(g);
    if (e === undefined) throw badInput(`${src.t.names.groupBy}: unknown value ${g}`);
    return e('t');
  });
  const w = wanted(src, info);
  // as many groups as a page has rows (--query-limit): one more is read to know there are more
  const limit = src.ctx.settings.queryLimit;
  const build = (params: SqlParams, ids: readonly string[] | undefined) => {
    const { from, parentCol } = src.aggregateFrom(params, ids);
    const having = compileHaving(src, args.having, params);
    return groupedAggregateSelect({ items: selectWanted(w), rows: from, ...(parentCol && { parent: parentCol }), keys: exprs, having, limit: limit + 1 });
  };
  const toResults = (rows: Record<string, unknown>[]) => {
    if (rows.length > limit) throw groupsOverLimit(src, limit);
    return rows.map((r) => ({ ...shape(w, r), keys: exprs.map((_e, i) => r[`g${i}`] ?? null) }));
  };
  if (src.parent === undefined) {
    const params = new SqlParams();
    const sql = build(params, undefined);
    return toResults(await src.ctx.sql(sql, params.values));
  }
  const key = `${src.nestedBatchKey('grouped')}:${JSON.stringify([args, w.columns.map((x) => [x.fn, x.column.column])])}`;
  const rows = await src.ctx.batcher.load<Record<string, unknown>[]>(key, src.parent.id, async (ids) => {
    const params = new SqlParams();
    const out = new Map<string, Record<string, unknown>[]>();
    for (const r of await src.ctx.sql(build(params, ids), params.values)) {
      const list = out.get(r.__parent as string) ?? [];
      list.push(r);
      out.set(r.__parent as string, list);
    }
    return out;
  });
  return toResults(rows ?? []);
}

/** groupedAggregates answers at most --query-limit groups, and refuses rather than cut the list short silently */
function groupsOverLimit(src: ConnectionSource, limit: number): GraphQLError {
  return new GraphQLError(
    `groupedAggregates of ${src.t.names.connection}: more than ${limit} groups (--query-limit); narrow it with a filter or having, or group by fewer values`,
    { extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit } },
  );
}

import { GraphQLError } from 'graphql';
import { columnRef } from '../../infra/postgres/read/column-ref.ts';
import { amongParents, connectionWhere, distinctColumns } from '../../infra/postgres/read/connection-conditions.ts';
import { countSelect, PAGE_PARENT_ID, pageColumns, pageSelect, pagesPerParent, rowsWhere } from '../../infra/postgres/read/connection-reads.ts';
import { afterCursorSql, orderBySql } from '../../infra/postgres/read/order-sql.ts';
import { searchSource } from '../../infra/postgres/read/search-source.ts';
import { SqlParams, versionCondition } from '../../infra/postgres/read/sql-params.ts';
import { badInput, compileFilter, type FilterInput } from './compile-filter.ts';
import type { EntityTable, QueryColumn } from './entity-tables.ts';
import { withHeight, type EntityRow } from './entity-rows.ts';
import { decodeCursor, encodeCursor, orderKeys, reverseKeys, type NullOrder, type OrderKey } from './order-keys.ts';
import type { QueryContext } from './query-context.ts';
import { searchTsquery } from './search-query.ts';

/** A connection's arguments, as GraphQL coerced them. */
export interface ConnectionArgs {
  first?: number | null;
  last?: number | null;
  offset?: number | null;
  before?: string | null;
  after?: string | null;
  orderBy?: string[] | null;
  orderByNull?: NullOrder | null;
  filter?: FilterInput | null;
  distinct?: string[] | null;
}

/** A full-text search (`search<Entities>`): only rows whose `@fullText` document matches `text`. */
export interface TextSearch {
  text: string;
}

/** Rows of a connection nested under a parent row: `account.sentTransfers` is `transfers.from_id = account.id`. */
export interface ParentLink {
  column: string;
  id: string;
}

export interface Page {
  rows: EntityRow[];
  hasNextPage: boolean;
  hasPreviousPage: boolean;
}

export function limitError(arg: string, n: number, limit: number): GraphQLError {
  return new GraphQLError(`${arg}: ${n} is more than the page limit ${limit} (--query-limit); page through the rest with cursors`, {
    extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit },
  });
}

/**
 * One connection field being resolved: its page, totalCount and aggregates each run one statement
 * when (and only when) selected. Nested under a list of parents, each kind runs once for all the
 * parents of the request (a LATERAL join or a GROUP BY on the foreign key), not once per parent.
 */
export class ConnectionSource {
  readonly keys: OrderKey[];
  readonly limit: number;
  readonly offset: number;
  /** paging from the end (`last`) */
  readonly backwards: boolean;
  private readonly afterValues: (string | null)[] | undefined;
  private readonly beforeValues: (string | null)[] | undefined;
  private readonly distinct: QueryColumn[];
  /** the search as tsquery text, read (and bounded) when the field is resolved */
  private readonly tsquery: string | undefined;
  private pagePromise: Promise<Page> | undefined;
  private countPromise: Promise<number> | undefined;

  constructor(
    readonly ctx: QueryContext,
    readonly t: EntityTable,
    readonly args: ConnectionArgs,
    readonly height: bigint | undefined,
    readonly parent?: ParentLink,
    readonly search?: TextSearch,
  ) {
    const { queryLimit } = ctx.settings;
    const { first, last, offset } = args;
    if (first != null && last != null) throw badInput('first and last cannot be combined; page forwards with first/after or backwards with last/before');
    for (const [arg, n] of [
      ['first', first],
      ['last', last],
      ['offset', offset],
    ] as const) {
      if (n != null && n < 0) throw badInput(`${arg} must be 0 or more, got ${n}`);
    }
    if (first != null && first > queryLimit) throw limitError('first', first, queryLimit);
    if (last != null && last > queryLimit) throw limitError('last', last, queryLimit);
    this.backwards = last != null;
    this.limit = first ?? last ?? queryLimit;
    this.offset = offset ?? 0;
    this.tsquery = search === undefined ? undefined : searchTsquery(search.text);
    this.keys = orderKeys(t, args.orderBy, args.orderByNull, { tables: ctx.tables, height, ranked: search !== undefined });
    this.afterValues = args.after == null ? undefined : decodeCursor(this.keys, args.after, 'after');
    this.beforeValues = args.before == null ? undefined : decodeCursor(this.keys, args.before, 'before');
    this.distinct = (args.distinct ?? []).map((d) => {
      const c = t.columns.find((x) => x.upper === d);
      if (c === undefined) throw badInput(`${t.names.distinct}: unknown value ${d}`);
      return c;
    });
  }

  cursor(row: EntityRow): string {
    return encodeCursor(this.keys, row);
  }

  /**
   * What the statements read from: the table, or for a search only its matching versions with their
   * rank as `__rank` (PostgreSQL flattens the subquery, so the `@fullText` GIN index answers it).
   */
  private from(params: SqlParams): string {
    const ft = this.t.entity.fullText;
    if (this.tsquery === undefined || ft === undefined) return this.t.table;
    return searchSource(this.t.table, ft, this.tsquery, params);
  }

  /** the conditions every statement of this connection shares (without cursors) */
  private where(alias: string, params: SqlParams, parentRef?: string): string {
    const version = versionCondition(this.t, alias, this.height, params);
    const filter = compileFilter(this.t, alias, this.args.filter, { tables: this.ctx.tables, height: this.height, params });
    return connectionWhere(alias, { version, filter, ...(parentRef !== undefined && { parent: { column: this.parent!.column, id: parentRef } }) });
  }

  private cursorWhere(alias: string, params: SqlParams): string[] {
    const parts: string[] = [];
    if (this.afterValues !== undefined) parts.push(afterCursorSql(alias, this.keys, this.afterValues, params));
    if (this.beforeValues !== undefined) parts.push(afterCursorSql(alias, reverseKeys(this.keys), this.beforeValues, params));
    return parts;
  }

  private pageSql(params: SqlParams, parentRef?: string): string {
    const where = this.where('t', params, parentRef);
    const parts = {
      select: pageColumns('t', this.t, this.keys),
      where,
      order: orderBySql('t', this.backwards ? reverseKeys(this.keys) : this.keys),
      limit: this.limit + 1,
      offset: this.offset,
    };
    // the parameters in the order the statement has always numbered them
    if (this.distinct.length === 0) {
      const cursor = this.cursorWhere('t', params);
      return pageSelect({ ...parts, cursor, from: this.from(params) });
    }
    const from = this.from(params);
    return pageSelect({
      ...parts,
      from,
      cursor: this.cursorWhere('t', params),
      distinctOn: { on: distinctColumns('t', this.distinct), order: orderBySql('t', this.keys) },
    });
  }

  private toPage(rows: EntityRow[]): Page {
    const more = rows.length > this.limit;
    const page = more ? rows.slice(0, this.limit) : rows;
    if (this.backwards) page.reverse();
    for (const r of page) withHeight(r, this.height);
    return this.backwards
      ? { rows: page, hasPreviousPage: more, hasNextPage: this.beforeValues !== undefined }
      : { rows: page, hasNextPage: more, hasPreviousPage: this.offset > 0 || this.afterValues !== undefined };
  }

  /** the signature of everything but the parent: connections that share it batch together */
  private batchKey(kind: string): string {
    return `${kind}:${this.t.entity.name}:${this.parent!.column}:${this.height ?? 'live'}:${JSON.stringify(this.args)}`;
  }

  page(): Promise<Page> {
    this.pagePromise ??= this.parent === undefined ? this.fetchPage() : this.fetchNestedPage();
    return this.pagePromise;
  }

  private async fetchPage(): Promise<Page> {
    const params = new SqlParams();
    const sql = this.pageSql(params);
    return this.toPage(await this.ctx.sql<EntityRow>(sql, params.values));
  }

  private async fetchNestedPage(): Promise<Page> {
    const rows = await this.ctx.batcher.load<EntityRow[]>(this.batchKey('page'), this.parent!.id, async (ids) => {
      const params = new SqlParams();
      const list = params.addList(ids, 'text');
      const sql = pagesPerParent(list, this.pageSql(params, PAGE_PARENT_ID));
      return groupBy(await this.ctx.sql<EntityRow>(sql, params.values), '__parent');
    });
    return this.toPage(rows ?? []);
  }

  totalCount(): Promise<number> {
    this.countPromise ??= this.parent === undefined ? this.fetchCount() : this.fetchNestedCount();
    return this.countPromise;
  }

  /** `ids`: the parents, when nested */
  private countSql(params: SqlParams, ids?: readonly string[]): string {
    const distinctOn = this.distinct.length === 0 ? undefined : distinctColumns('t', this.distinct);
    const from = this.from(params);
    if (ids === undefined) return countSelect({ from, where: this.where('t', params), ...(distinctOn !== undefined && { distinctOn }) });
    const parentColumn = columnRef('t', this.parent!.column);
    const where = amongParents(parentColumn, params.addList(ids, 'text'), this.where('t', params));
    return countSelect({ from, where, parentColumn, ...(distinctOn !== undefined && { distinctOn }) });
  }

  private async fetchCount(): Promise<number> {
    const params = new SqlParams();
    const [row] = await this.ctx.sql<{ n: string | number }>(this.countSql(params), params.values);
    return Number(row?.n ?? 0);
  }

  private async fetchNestedCount(): Promise<number> {
    const n = await this.ctx.batcher.load<number>(this.batchKey('count'), this.parent!.id, async (ids) => {
      const params = new SqlParams();
      const sql = this.countSql(params, ids);
      const rows = await this.ctx.sql<{ __parent: string; n: string | number }>(sql, params.values);
      return new Map(rows.map((r) => [r.__parent, Number(r.n)]));
    });
    return n ?? 0;
  }

  /**
   * For aggregates: the FROM and WHERE of this connection's rows (cursors and paging do not apply),
   * with the parent's foreign key as `__parent` when nested. `ids` is filled by the caller.
   */
  aggregateFrom(params: SqlParams, ids: readonly string[] | undefined): { from: string; parentCol?: string } {
    const from = this.from(params);
    if (this.parent === undefined) return { from: rowsWhere(from, this.where('t', params)) };
    const parentCol = columnRef('t', this.parent.column);
    const list = params.addList(ids ?? [], 'text');
    return { from: rowsWhere(from, amongParents(parentCol, list, this.where('t', params))), parentCol };
  }

  nestedBatchKey(kind: string): string {
    return this.batchKey(kind);
  }
}

export function groupBy<R extends Record<string, unknown>>(rows: R[], key: string): Map<string, R[]> {
  const out = new Map<string, R[]>();
  for (const r of rows) {
    const k = r[key] as string;
    delete r[key];
    const list = out.get(k);
    if (list === undefined) out.set(k, [r]);
    else list.push(r);
  }
  return out;
}

import { changesCountSelect, changesJoin, changesPageSelect } from '../../infra/postgres/read/changes-reads.ts';
import { fromStoredUnfinalized } from '../../domain/blocks/unfinalized-blocks.ts';
import { badInput, compileFilter, type FilterInput } from './compile-filter.ts';
import { limitError } from './connection-source.ts';
import type { EntityTable } from './entity-tables.ts';
import { withHeight, type EntityRow } from './entity-rows.ts';
import { indexedChains, metadataValues } from './indexed-chains.ts';
import { parseCursorJson } from './order-keys.ts';
import type { QueryContext } from './query-context.ts';
import { SqlParams } from '../../infra/postgres/read/sql-params.ts';

export type Mutation = 'CREATE' | 'UPDATE' | 'DELETE';

/** One change of an entity at a height: the version that ended there, the one that began, or both. */
export interface Change {
  id: string;
  height: number;
  mutation: Mutation;
  /** the version alive at `height - 1`, read with its relations at that height */
  before: EntityRow | null;
  /** the version alive at `height` */
  after: EntityRow | null;
}

export interface ChangesArgs {
  fromHeight: number;
  toHeight?: number | null;
  first?: number | null;
  after?: string | null;
  filter?: FilterInput | null;
}

export interface ChangesPage {
  changes: Change[];
  hasNextPage: boolean;
}

/**
 * `<entity>Changes`: the versions begun or ended in `[fromHeight, toHeight)`, paired by id and height
 * into CREATE (begun only), UPDATE (one ended where the next began) and DELETE (ended only), in
 * (height, id) order. Each side is read from its own index, `(lower(__block_range), id)` and
 * `(upper(__block_range), id)`, from the cursor on and at most a page long: every change among the
 * first n has its rows among the first n of each side, so pairing the two short lists is exact.
 * `toHeight` is capped at the last height that cannot be rolled back, so a client polling from the
 * `toHeight` it was last given sees every change once.
 */
export class ChangesSource {
  readonly limit: number;
  private readonly afterKey: [string, string] | undefined;
  private heightsPromise: Promise<{ from: number; to: number }> | undefined;
  private pagePromise: Promise<ChangesPage> | undefined;
  private countPromise: Promise<number> | undefined;

  constructor(
    readonly ctx: QueryContext,
    readonly t: EntityTable,
    readonly args: ChangesArgs,
  ) {
    const { queryLimit } = ctx.settings;
    const { first, fromHeight, toHeight } = args;
    if (first != null && first < 0) throw badInput(`first must be 0 or more, got ${first}`);
    if (first != null && first > queryLimit) throw limitError('first', first, queryLimit);
    if (fromHeight < 0) throw badInput(`fromHeight must be 0 or more, got ${fromHeight}`);
    if (toHeight != null && toHeight < fromHeight) throw badInput(`toHeight (${toHeight}) is below fromHeight (${fromHeight})`);
    this.limit = first ?? queryLimit;
    this.afterKey = args.after == null ? undefined : decodeChangeCursor(args.after);
  }

  /**
   * the window answered: `toHeight` as asked, but not past the last height that cannot change. A
   * window that starts past it is refused: any `toHeight` answered would claim heights not settled.
   */
  heights(): Promise<{ from: number; to: number }> {
    this.heightsPromise ??= settledHeight(this.ctx).then((settled) => {
      const cap = settled + 1;
      const { fromHeight } = this.args;
      if (fromHeight > cap)
        throw badInput(
          `fromHeight ${fromHeight} is past the heights whose changes are final: ${settled < 0 ? 'nothing is indexed yet' : `the last is ${settled}`}; ask from at most ${cap} (the toHeight of the previous answer)`,
        );
      return { from: fromHeight, to: Math.max(fromHeight, Math.min(this.args.toHeight ?? cap, cap)) };
    });
    return this.heightsPromise;
  }

  page(): Promise<ChangesPage> {
    this.pagePromise ??= this.fetchPage();
    return this.pagePromise;
  }

  totalCount(): Promise<number> {
    this.countPromise ??= this.fetchCount();
    return this.countPromise;
  }

  cursor(c: Change): string {
    return Buffer.from(JSON.stringify(['changes', String(c.height), c.id])).toString('base64');
  }

  /** the two sides and their full join; `paged`: from the cursor on, a page (+1) of each */
  private async joinSql(params: SqlParams, paged: boolean): Promise<string> {
    const { from, to } = await this.heights();
    const matches = (alias: string, height: string) =>
      compileFilter(this.t, alias, this.args.filter, { tables: this.ctx.tables, height: { sql: height }, params });
    const page = paged ? { limit: this.limit, ...(this.afterKey !== undefined && { after: this.afterKey }) } : undefined;
    return changesJoin(this.t, { from, to, matches, ...(page !== undefined && { page }) }, params);
  }

  private async fetchPage(): Promise<ChangesPage> {
    if (this.limit === 0) return { changes: [], hasNextPage: false };
    const params = new SqlParams();
    const join = await this.joinSql(params, true);
    const sql = changesPageSelect(this.t, join, this.limit);
    const rows = await this.ctx.sql<Record<string, unknown>>(sql, params.values);
    const more = rows.length > this.limit;
    const changes = rows.slice(0, this.limit).map((r): Change => {
      const height = Number(r.__height);
      const version = (prefix: string, present: unknown, at: number) =>
        present === true ? withHeight(Object.fromEntries(this.t.columns.map((c) => [c.column, r[prefix + c.column]])), BigInt(at)) : null;
      const after = version('a.', r.__has_after, height);
      const before = version('b.', r.__has_before, height - 1);
      return { id: r.__id as string, height, mutation: before === null ? 'CREATE' : after === null ? 'DELETE' : 'UPDATE', before, after };
    });
    return { changes, hasNextPage: more };
  }

  private async fetchCount(): Promise<number> {
    const params = new SqlParams();
    const [row] = await this.ctx.sql<{ n: string | number }>(changesCountSelect(await this.joinSql(params, false)), params.values);
    return Number(row?.n ?? 0);
  }
}

function decodeChangeCursor(cursor: string): [string, string] {
  const parsed = parseCursorJson(cursor);
  if (!Array.isArray(parsed) || parsed.length !== 3 || parsed[0] !== 'changes' || !/^\d+$/.test(String(parsed[1])) || typeof parsed[2] !== 'string') {
    throw badInput('after: not a cursor of a changes connection');
  }
  return [parsed[1] as string, parsed[2]];
}

/**
 * The last height whose versions are settled: the last committed block, less the blocks a fork
 * could still roll back (`unfinalizedBlocks`). Read from the tables, not the node's live `/meta`,
 * which runs ahead of what is committed. With `--multi-chain`, the lowest of the chains'.
 */
async function settledHeight(ctx: QueryContext): Promise<number> {
  const sql = ctx.sql.bind(ctx);
  const chains = await indexedChains(sql, ctx.schema);
  const heights = await Promise.all(
    chains.map(async ({ metadata }) => {
      const m = await metadataValues(sql, ctx.schema, metadata, ['lastProcessedHeight', 'unfinalizedBlocks']);
      if (typeof m.lastProcessedHeight !== 'number') return undefined;
      const unfinalized = fromStoredUnfinalized(m.unfinalizedBlocks);
      return unfinalized.length > 0 ? Math.min(m.lastProcessedHeight, unfinalized[0]!.height - 1) : m.lastProcessedHeight;
    }),
  );
  const known = heights.filter((h): h is number => h !== undefined);
  return known.length > 0 ? Math.min(...known) : -1;
}

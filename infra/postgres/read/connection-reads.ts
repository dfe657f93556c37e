import { cursorColumnsSql, type SqlOrderKey } from './order-sql.ts';
import { selectList, type ReadTable } from './select-list.ts';

/**
 * The statements of a connection (`transfers(first, after, filter…)`): its page and its totalCount,
 * alone or for many parents at once. The caller compiles the parts (conditions, order, select list)
 * into SQL text with one SqlParams; these put them together.
 */

/** What a page selects of each row `alias`: every column, then the text of each order key (`__k0`…) for its cursor. */
export function pageColumns(alias: string, t: Pick<ReadTable, 'columns'>, keys: readonly SqlOrderKey[]): string {
  return `${selectList(alias, t)}, ${cursorColumnsSql(alias, keys)}`;
}

/** What a page statement selects and from where, in `t`. */
export interface PageParts {
  /** the columns and the cursor columns */
  select: string;
  /** a table or a subquery (a search) */
  from: string;
  /** the connection's conditions: version, filter, parent ('true' when none) */
  where: string;
  /** the cursor conditions (after, before) */
  cursor: readonly string[];
  /** `order by` of the page (reversed for `last`) */
  order: string;
  /** rows to read: the page and one more, to know whether there are more */
  limit: number;
  offset: number;
  /** `distinct`: DISTINCT ON these expressions, the first row of each in `distinctOrder` */
  distinctOn?: { on: string; order: string };
}

/** One page of a connection's rows. */
export function pageSelect(p: PageParts): string {
  const tail = ` order by ${p.order} limit ${p.limit}${p.offset > 0 ? ` offset ${p.offset}` : ''}`;
  if (p.distinctOn === undefined) {
    const conds = [p.where, ...p.cursor].filter((c) => c !== 'true');
    return `select ${p.select} from ${p.from} t where ${conds.join(' and ') || 'true'}${tail}`;
  }
  // DISTINCT ON keeps the first row of each group in the page's order; paging applies after it.
  const { on, order } = p.distinctOn;
  const inner = `select distinct on (${on}) t.* from ${p.from} t where ${p.where} order by ${on}, ${order}`;
  return `select ${p.select} from (${inner}) t${p.cursor.length > 0 ? ` where ${p.cursor.join(' and ')}` : ''}${tail}`;
}

/** The parent's id in the page statement of {@link pagesPerParent}. */
export const PAGE_PARENT_ID = 'p.__parent';

/** A page per parent: `page` refers to the parent's id as {@link PAGE_PARENT_ID}; each row comes with it. */
export function pagesPerParent(parents: string, page: string): string {
  return `select p.__parent, x.* from unnest(${parents}) as p(__parent) cross join lateral (${page}) x`;
}

/** What a count statement counts, in `t`. */
export interface CountParts {
  from: string;
  where: string;
  /** counted per parent: the parent's foreign key (`t."from_id"`), answered as `__parent` */
  parentColumn?: string;
  /** `distinct`: the rows counted are the distinct ones of these expressions */
  distinctOn?: string;
}

/** A connection's totalCount, as `n` (per `__parent` when nested). */
export function countSelect(p: CountParts): string {
  const { from, where, parentColumn: parent } = p;
  if (p.distinctOn === undefined) {
    return parent === undefined
      ? `select count(*) as n from ${from} t where ${where}`
      : `select ${parent} as __parent, count(*) as n from ${from} t where ${where} group by ${parent}`;
  }
  const on = parent === undefined ? p.distinctOn : `${parent}, ${p.distinctOn}`;
  return parent === undefined
    ? `select count(*) as n from (select distinct on (${on}) 1 from ${from} t where ${where}) d`
    : `select __parent, count(*) as n from (select distinct on (${on}) ${parent} as __parent from ${from} t where ${where}) d group by __parent`;
}

/** The rows a connection is over, as `t`, for a statement to select from (aggregates). */
export function rowsWhere(from: string, where: string): string {
  return `${from} t where ${where}`;
}

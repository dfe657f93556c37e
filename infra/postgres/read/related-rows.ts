import { columnRef } from './column-ref.ts';
import { versionAt, versionCondition, type Height, type SqlParams, type Versioned } from './sql-params.ts';

/** Subqueries over the rows related to an outer row: a filter's EXISTS, an order's value of a related row. */

/** Whether a row of `table` (as `alias`) meets `condition`. */
export function existsRow(table: string, alias: string, condition: string): string {
  return `exists (select 1 from ${table} ${alias} where ${condition})`;
}

/** `value` over the rows of `table` (as `r`) that meet `condition`: one related row's column, or an aggregate of them. */
export function relatedValue(value: string, table: string, condition: string): string {
  return `(select ${value} from ${table} r where ${condition})`;
}

/** The related entity's table, and whether it keeps history. */
export interface RelatedTable extends Versioned {
  /** `"schema"."accounts"` */
  table: string;
}

/**
 * How a relation joins its rows: `forward`, the outer row's `column` holds the related row's id
 * (`transfer.from`); `backward`, the related rows' `column` holds the outer row's id (`account.sentTransfers`).
 */
export interface RelationLink {
  direction: 'forward' | 'backward';
  column: string;
}

/** the related row `related` belongs to the row `outer` */
export function relationJoin(link: RelationLink, related: string, outer: string): string {
  return link.direction === 'forward' ? `${related}.id = ${columnRef(outer, link.column)}` : `${columnRef(related, link.column)} = ${outer}.id`;
}

/**
 * Whether a row of `other` related to the row `outer` is seen at `height` (the query's), meeting
 * `where(alias)` when given: `exists (…)`, under a fresh alias.
 */
export function relatedRowExists(
  outer: string,
  other: RelatedTable,
  link: RelationLink,
  scope: { height: Height | undefined; params: SqlParams },
  where?: (alias: string) => string,
): string {
  const a = scope.params.alias();
  const cond = `${relationJoin(link, a, outer)} and ${versionCondition(other, a, scope.height, scope.params)}`;
  return existsRow(other.table, a, where === undefined ? cond : `${cond} and (${where(a)})`);
}

/** {@link relatedRowExists} negated: no such row. */
export function noRelatedRow(...args: Parameters<typeof relatedRowExists>): string {
  return `not ${relatedRowExists(...args)}`;
}

/**
 * `value(r)` over the rows of `other` related to the row `outer` (as `r`), alive at `height`: a
 * validated block height, written as a literal so that order keys need no statement parameters.
 */
export function relatedRowsValue(value: (r: string) => string, outer: string, other: RelatedTable, link: RelationLink, height: bigint | undefined): string {
  const alive = versionAt(other, 'r', height === undefined ? undefined : { sql: `${height}::int8` });
  return relatedValue(value('r'), other.table, `${relationJoin(link, 'r', outer)} and ${alive}`);
}

/** The number of rows of `other` related to the row `outer`, alive at `height` (as {@link relatedRowsValue}). */
export function relatedRowCount(outer: string, other: RelatedTable, link: RelationLink, height: bigint | undefined): string {
  return relatedRowsValue(() => 'count(*)', outer, other, link, height);
}

import { columnRef } from './column-ref.ts';

/**
 * The conditions of a connection's rows (in `t`, or `alias`) that the statements of
 * connection-reads.ts share: which versions, the filter, and the parent's when nested.
 */

export interface ConnectionConditions {
  /** the versions seen (versionCondition) */
  version: string;
  /** the compiled `filter` ('true' for none) */
  filter: string;
  /** nested under a parent row: the rows' foreign key, and the parent's id as SQL (`p.__parent`) */
  parent?: { column: string; id: string };
}

/** The rows' conditions joined, the parent's first; those that are 'true' left out ('true' when all are). */
export function connectionWhere(alias: string, c: ConnectionConditions): string {
  const parts = [c.version, c.filter];
  if (c.parent !== undefined) parts.unshift(`${columnRef(alias, c.parent.column)} = ${c.parent.id}`);
  return parts.filter((p) => p !== 'true').join(' and ') || 'true';
}

/** The rows of any of the parents `ids` (a list parameter) meeting `where`: `t."from_id" = any($1…) and …`. */
export function amongParents(parentColumn: string, ids: string, where: string): string {
  return `${parentColumn} = any(${ids}) and ${where}`;
}

/** The expressions of `distinct`: each column of the row `alias`, as DISTINCT ON takes them. */
export function distinctColumns(alias: string, columns: readonly { column: string }[]): string {
  return columns.map((c) => columnRef(alias, c.column)).join(', ');
}

import { GraphQLError } from 'graphql';
import { columnRef } from '../../infra/postgres/read/column-ref.ts';
import { allOf, filterList, negated, NO_CONDITION } from '../../infra/postgres/read/filter-logic.ts';
import { operatorsFor } from '../../infra/postgres/read/filter-operators.ts';
import { noRelatedRow, relatedRowExists, type RelationLink } from '../../infra/postgres/read/related-rows.ts';
import type { Height, SqlParams } from '../../infra/postgres/read/sql-params.ts';
import type { EntityTable } from './entity-tables.ts';

export type FilterInput = Record<string, unknown>;

export interface FilterScope {
  tables: ReadonlyMap<string, EntityTable>;
  /** the height the related rows are read at (undefined: the live rows) */
  height: Height | undefined;
  params: SqlParams;
}

export function badInput(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });
}

/**
 * A `filter` argument as one SQL condition on `alias`. Relation filters become EXISTS subqueries
 * that see the related rows at the same height as the query.
 */
export function compileFilter(t: EntityTable, alias: string, filter: FilterInput | null | undefined, scope: FilterScope): string {
  if (filter === null || filter === undefined) return NO_CONDITION;
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (value === null) throw badInput(`${t.names.filter}.${key}: null is not a filter; use {isNull: true} to match missing values`);
    parts.push(compileEntry(t, alias, key, value, scope));
  }
  return allOf(parts);
}

function compileEntry(t: EntityTable, alias: string, key: string, value: unknown, scope: FilterScope): string {
  if (key === 'and' || key === 'or') {
    return filterList(
      key,
      (value as FilterInput[]).map((f) => compileFilter(t, alias, f, scope)),
    );
  }
  if (key === 'not') return negated(compileFilter(t, alias, value as FilterInput, scope));

  const column = t.byName.get(key);
  if (column !== undefined) {
    const ref = columnRef(alias, column.column);
    const ops = operatorsFor(column);
    const parts: string[] = [];
    for (const [opName, operand] of Object.entries(value as Record<string, unknown>)) {
      if (operand === undefined) continue;
      if (operand === null) throw badInput(`${t.names.filter}.${key}.${opName}: null is not a value to compare with; use {isNull: true}`);
      const op = ops.find((o) => o.name === opName);
      if (op === undefined) throw badInput(`${t.names.filter}.${key}: unknown operator ${opName}`);
      parts.push(op.sql(ref, operand, column, scope.params));
    }
    return allOf(parts);
  }

  const forward = t.forward.find((r) => r.name === key || `${r.name}Exists` === key);
  if (forward !== undefined) {
    const other = scope.tables.get(forward.entity)!;
    const link: RelationLink = { direction: 'forward', column: forward.column };
    if (key !== forward.name) return (value ? relatedRowExists : noRelatedRow)(alias, other, link, scope);
    return relatedRowExists(alias, other, link, scope, (a) => compileFilter(other, a, value as FilterInput, scope));
  }

  const backward = t.backward.find((r) => r.name === key || `${r.name}${r.many ? 'Exist' : 'Exists'}` === key);
  if (backward !== undefined) {
    const other = scope.tables.get(backward.entity)!;
    const link: RelationLink = { direction: 'backward', column: backward.column };
    if (key !== backward.name) return (value ? relatedRowExists : noRelatedRow)(alias, other, link, scope);
    if (!backward.many) return relatedRowExists(alias, other, link, scope, (a) => compileFilter(other, a, value as FilterInput, scope));
    const q = value as { some?: FilterInput | null; every?: FilterInput | null; none?: FilterInput | null };
    const parts: string[] = [];
    if (q.some != null) parts.push(relatedRowExists(alias, other, link, scope, (a) => compileFilter(other, a, q.some, scope)));
    if (q.none != null) parts.push(noRelatedRow(alias, other, link, scope, (a) => compileFilter(other, a, q.none, scope)));
    // every: no related row fails the filter
    if (q.every != null) parts.push(noRelatedRow(alias, other, link, scope, (a) => negated(compileFilter(other, a, q.every, scope))));
    return allOf(parts);
  }
  throw badInput(`${t.names.filter}: unknown field ${key}`);
}

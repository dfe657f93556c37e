import { GraphQLError } from 'graphql';
import { existsRow } from '../../infra/postgres/read/related-rows.ts';
import { quoteIdent } from '../../infra/postgres/sql.ts';
import type { EntityTable } from './entity-tables.ts';
import { operatorsFor } from '../../infra/postgres/read/filter-operators.ts';
import { versionCondition, type Height, type SqlParams } from '../../infra/postgres/read/sql-params.ts';

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
  if (filter === null || filter === undefined) return 'true';
  const parts: string[] = [];
  for (const [key, value] of Object.entries(filter)) {
    if (value === undefined) continue;
    if (value === null) throw badInput(`${t.names.filter}.${key}: null is not a filter; use {isNull: true} to match missing values`);
    parts.push(compileEntry(t, alias, key, value, scope));
  }
  return conjunction(parts);
}

function conjunction(parts: string[]): string {
  if (parts.length === 0) return 'true';
  return parts.length === 1 ? parts[0]! : parts.map((p) => `(${p})`).join(' and ');
}

function compileEntry(t: EntityTable, alias: string, key: string, value: unknown, scope: FilterScope): string {
  if (key === 'and' || key === 'or') {
    const items = (value as FilterInput[]).map((f) => `(${compileFilter(t, alias, f, scope)})`);
    if (items.length === 0) return 'true';
    return items.join(key === 'and' ? ' and ' : ' or ');
  }
  if (key === 'not') return `not (${compileFilter(t, alias, value as FilterInput, scope)})`;

  const column = t.byName.get(key);
  if (column !== undefined) {
    const ref = `${alias}.${quoteIdent(column.column)}`;
    const ops = operatorsFor(column);
    const parts: string[] = [];
    for (const [opName, operand] of Object.entries(value as Record<string, unknown>)) {
      if (operand === undefined) continue;
      if (operand === null) throw badInput(`${t.names.filter}.${key}.${opName}: null is not a value to compare with; use {isNull: true}`);
      const op = ops.find((o) => o.name === opName);
      if (op === undefined) throw badInput(`${t.names.filter}.${key}: unknown operator ${opName}`);
      parts.push(op.sql(ref, operand, column, scope.params));
    }
    return conjunction(parts);
  }

  const forward = t.forward.find((r) => r.name === key || `${r.name}Exists` === key);
  if (forward !== undefined) {
    const other = scope.tables.get(forward.entity)!;
    const a = scope.params.alias();
    const join = `${a}.id = ${alias}.${quoteIdent(forward.column)} and ${versionCondition(other, a, scope.height, scope.params)}`;
    if (key !== forward.name) return `${value ? '' : 'not '}${existsRow(other.table, a, join)}`;
    return existsRow(other.table, a, `${join} and (${compileFilter(other, a, value as FilterInput, scope)})`);
  }

  const backward = t.backward.find((r) => r.name === key || `${r.name}${r.many ? 'Exist' : 'Exists'}` === key);
  if (backward !== undefined) {
    const other = scope.tables.get(backward.entity)!;
    /** EXISTS over the related rows, narrowed by `where(alias)` when given */
    const related = (where?: (a: string) => string) => {
      const a = scope.params.alias();
      const cond = `${a}.${quoteIdent(backward.column)} = ${alias}.id and ${versionCondition(other, a, scope.height, scope.params)}`;
      return existsRow(other.table, a, `${cond}${where === undefined ? '' : ` and (${where(a)})`}`);
    };
    if (key !== backward.name) return `${value ? '' : 'not '}${related()}`;
    if (!backward.many) return related((a) => compileFilter(other, a, value as FilterInput, scope));
    const q = value as { some?: FilterInput | null; every?: FilterInput | null; none?: FilterInput | null };
    const parts: string[] = [];
    if (q.some != null) parts.push(related((a) => compileFilter(other, a, q.some, scope)));
    if (q.none != null) parts.push(`not ${related((a) => compileFilter(other, a, q.none, scope))}`);
    // every: no related row fails the filter
    if (q.every != null) parts.push(`not ${related((a) => `not (${compileFilter(other, a, q.every, scope)})`)}`);
    return conjunction(parts);
  }
  throw badInput(`${t.names.filter}: unknown field ${key}`);
}

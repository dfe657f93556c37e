import { aggregateSql, type AggregateFn } from './aggregate-expressions.ts';
import { utcTimestampText } from './filter-operators.ts';
import type { ReadColumn } from './select-list.ts';
import type { SqlParams } from './sql-params.ts';

/** The comparisons of pg-aggregates' `having` filters (`HavingIntFilter`…), as SQL operators. */
const HAVING_OPERATORS = {
  equalTo: '=',
  notEqualTo: '<>',
  greaterThan: '>',
  greaterThanOrEqualTo: '>=',
  lessThan: '<',
  lessThanOrEqualTo: '<=',
} as const;
export type HavingOperator = keyof typeof HAVING_OPERATORS;

export function isHavingOperator(op: string): op is HavingOperator {
  return Object.hasOwn(HAVING_OPERATORS, op);
}

/**
 * One comparison of a group's aggregate, over `t`: `max(t."value")::numeric > $1::numeric`. The
 * operand is a number, or for a timestamp's min and max a Datetime (made UTC as stored).
 */
export function havingComparison(fn: AggregateFn, c: ReadColumn, op: HavingOperator, operand: string, params: SqlParams): string {
  const value = c.kind === 'datetime' ? params.add(utcTimestampText(operand), 'timestamp') : params.add(operand, 'numeric');
  return `${aggregateSql(fn, c, 't', false)} ${HAVING_OPERATORS[op]} ${value}`;
}

/** A `having`'s `AND: [...]` or `OR: [...]`, each item in parentheses; undefined for an empty list (no condition). */
export function havingList(op: 'AND' | 'OR', items: readonly string[]): string | undefined {
  return items.length === 0 ? undefined : `(${items.map((i) => `(${i})`).join(op === 'AND' ? ' and ' : ' or ')})`;
}

/** Every condition of a `having`; 'true' for none. */
export function havingAll(parts: readonly string[]): string {
  return parts.length === 0 ? 'true' : parts.join(' and ');
}

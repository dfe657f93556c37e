/**
 * How a `filter` argument's conditions combine (postgraphile-plugin-connection-filter's `and`, `or`
 * and `not`). A condition that holds for every row is 'true'.
 */

/** The condition of no filter: every row meets it. */
export const NO_CONDITION = 'true';

/** Every one of `parts`, each in parentheses when there are several; 'true' for none. */
export function allOf(parts: readonly string[]): string {
  if (parts.length === 0) return NO_CONDITION;
  return parts.length === 1 ? parts[0]! : parts.map((p) => `(${p})`).join(' and ');
}

/** A filter's `and: [...]` or `or: [...]` list: each item in parentheses; 'true' for an empty list. */
export function filterList(op: 'and' | 'or', items: readonly string[]): string {
  if (items.length === 0) return NO_CONDITION;
  return items.map((i) => `(${i})`).join(` ${op} `);
}

/** A filter's `not: {...}`. */
export function negated(condition: string): string {
  return `not (${condition})`;
}

/** Subqueries over the rows related to an outer row: a filter's EXISTS, an order's value of a related row. */

/** Whether a row of `table` (as `alias`) meets `condition`. */
export function existsRow(table: string, alias: string, condition: string): string {
  return `exists (select 1 from ${table} ${alias} where ${condition})`;
}

/** `value` over the rows of `table` (as `r`) that meet `condition`: one related row's column, or an aggregate of them. */
export function relatedValue(value: string, table: string, condition: string): string {
  return `(select ${value} from ${table} r where ${condition})`;
}

import { quoteIdent } from '../sql.ts';

/** A column of the row `alias`: `t."from_id"`. */
export function columnRef(alias: string, column: string): string {
  return `${alias}.${quoteIdent(column)}`;
}

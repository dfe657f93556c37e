import { qualified } from '../sql.ts';

/**
 * A table of the served schema as the read statements name it, `"app"."transfers"`: an entity's, or
 * a chain's `_metadata` and `_poi`. The query service keeps the names it reads (unqualified) and
 * hands the builders this.
 */
export function schemaTable(schema: string, table: string): string {
  return qualified(schema, table);
}

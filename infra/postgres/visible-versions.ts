import { BLOCK_RANGE } from './schema-ddl.ts';

/**
 * The rule of which versions of an entity a read sees, for the store and for idx-query alike: the
 * live ones (`upper_inf(__block_range)`), or, at a height, those whose block range holds it; a
 * table without history has one row per id, all seen. `alias`: the table's alias in the read, if
 * any; `height`: the height as SQL (a parameter, a literal or an expression over the outer row).
 *
 * At a height, `lower(__block_range) <= height` is said as well, though the range test implies it:
 * the indexes of historical tables end with `lower(__block_range)` (schema-ddl.ts), and only a
 * condition on that column lets the database skip, inside the index, the versions begun after the
 * height, rather than fetching each row to test its range (a page ordered by an indexed field at a
 * past height read every row written since that height).
 */
export function visibleVersions(historical: boolean, alias: string | undefined, height: string | undefined): string {
  if (!historical) return 'true';
  const range = alias === undefined ? BLOCK_RANGE : `${alias}.${BLOCK_RANGE}`;
  return height === undefined ? `upper_inf(${range})` : `(lower(${range}) <= (${height}) and ${range} @> (${height}))`;
}

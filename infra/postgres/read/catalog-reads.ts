import type { ReadStatement } from './read-statement.ts';

/** The planner's row estimate of each entity table of `schema` (not the `_` tables), by name: rows of `table`, `estimate`. */
export function rowCountEstimates(schema: string): ReadStatement {
  return {
    text: `select c.relname as table, greatest(c.reltuples, 0)::int8 as estimate from pg_class c join pg_namespace n on n.oid = c.relnamespace
            where n.nspname = $1 and c.relkind = 'r' and left(c.relname, 1) <> '_' order by c.relname`,
    values: [schema],
  };
}

/** The bytes the tables of `schema` take, indexes included: one row of `size`, as text. */
export function schemaSize(schema: string): ReadStatement {
  return {
    text: `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as size from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
    values: [schema],
  };
}

import { CHAIN_METADATA_PREFIX } from '../../../domain/entities/chain-tables.ts';
import { textArray } from '../pg-arrays.ts';
import type { ReadStatement } from './read-statement.ts';

/** The values of `keys` in a metadata table (`"schema"."_metadata"`, qualified): rows of `key`, `value`. */
export function metadataByKeys(table: string, keys: readonly string[]): ReadStatement {
  return { text: `select key, value from ${table} where key = any($1::text[])`, values: [textArray(keys)] };
}

/**
 * Every entry of a metadata table but the stored model (`schema`) and the node's own records
 * (`idxDeployment`, `idxHandlerAccess`, `idxReuse`: none is a `_metadata` field), for `_metadata`.
 */
export function metadataWithoutModel(table: string): ReadStatement {
  return { text: `select key, value from ${table} where key not in ('schema', 'idxDeployment', 'idxHandlerAccess', 'idxReuse')`, values: [] };
}

/**
 * The tables of `schema` that hold chains' metadata and proofs of indexing (`_metadata`, the
 * `--multi-chain` `_metadata_<key>`, `_poi…`), by name: rows of `name`.
 */
export function chainTableNames(schema: string): ReadStatement {
  return {
    text: `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = $1 and c.relkind = 'r' and (c.relname = '_metadata' or c.relname like $2 or c.relname like '\\_poi%')
          order by c.relname`,
    values: [schema, `${CHAIN_METADATA_PREFIX.replace(/_/g, '\\_')}%`],
  };
}

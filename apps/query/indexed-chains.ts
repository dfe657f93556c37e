import { CHAIN_METADATA_PREFIX } from '../../domain/entities/chain-tables.ts';
import { chainTableNames, metadataByKeys } from '../../infra/postgres/read/metadata-reads.ts';
import { schemaTable } from '../../infra/postgres/read/schema-table.ts';

/** Runs one statement: `QueryContext.sql`, or `execute` on a database. */
type Sql = <R>(text: string, params: readonly unknown[]) => Promise<R[]>;

/** One indexed chain's tables in the served schema (names, unqualified). */
export interface ChainTables {
  /** `_metadata`, or with `--multi-chain` the chain's `_metadata_<key>` */
  metadata: string;
  /** `_poi` or `_poi_<key>`, when it exists */
  poi: string | undefined;
}

/**
 * The chains whose metadata the schema holds: with `--multi-chain` each chain's tables, in table
 * name order (the first answers `_metadata` without a chainId); else `_metadata` and `_poi`; none
 * when the schema has no metadata table.
 */
export async function indexedChains(sql: Sql, schema: string): Promise<ChainTables[]> {
  const { text, values } = chainTableNames(schema);
  const names = new Set((await sql<{ name: string }>(text, values)).map((r) => r.name));
  const poi = (name: string) => (names.has(name) ? name : undefined);
  const perChain = [...names].filter((n) => n.startsWith(CHAIN_METADATA_PREFIX));
  if (perChain.length > 0) return perChain.map((metadata) => ({ metadata, poi: poi(`_poi_${metadata.slice(CHAIN_METADATA_PREFIX.length)}`) }));
  return names.has('_metadata') ? [{ metadata: '_metadata', poi: poi('_poi') }] : [];
}

/** The values of `keys` in one metadata table (a key not there is absent). */
export async function metadataValues(sql: Sql, schema: string, table: string, keys: readonly string[]): Promise<Record<string, unknown>> {
  const { text, values } = metadataByKeys(schemaTable(schema, table), keys);
  const rows = await sql<{ key: string; value: unknown }>(text, values);
  return Object.fromEntries(rows.map((r) => [r.key, r.value]));
}

/**
 * `--multi-chain`: several nodes, one per chain, index into one database schema. Entity tables are
 * shared; each version row says which chain wrote it, so one chain's rewind never touches another's.
 * Each chain keeps its own `_metadata` and `_poi` tables. The query service reads this contract.
 */

/** The column of the chain id (the manifest's `network.chainId`) on every entity table of a multi-chain schema. */
export const CHAIN_COLUMN = '__chain';

/** The suffix of a chain's tables: the chain id itself when it is short and plain (EVM ids: `31337`), else a hash of it. */
export function chainTableKey(chainId: string): string {
  if (/^[A-Za-z0-9_]{1,40}$/.test(chainId)) return chainId;
  let hash = 0x811c9dc5; // FNV-1a, 32 bit
  for (const ch of chainId) hash = Math.imul(hash ^ ch.codePointAt(0)!, 0x01000193) >>> 0;
  return `h${hash.toString(16).padStart(8, '0')}`;
}

/** What the names of the chains' metadata tables start with; the query service finds them by it. */
export const CHAIN_METADATA_PREFIX = '_metadata_';

/** A chain's metadata table in a multi-chain schema: `_metadata_31337`. */
export function chainMetadataTable(chainId: string): string {
  return `${CHAIN_METADATA_PREFIX}${chainTableKey(chainId)}`;
}

/** A chain's proof-of-indexing table in a multi-chain schema: `_poi_31337`. */
export function chainPoiTable(chainId: string): string {
  return `_poi_${chainTableKey(chainId)}`;
}

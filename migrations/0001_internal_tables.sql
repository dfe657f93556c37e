-- Internal tables of a project schema. Runs with search_path set to that schema.
-- Append-only: never edit a migration once it has landed; add a new file instead.

CREATE TABLE IF NOT EXISTS _metadata (
  key text PRIMARY KEY,
  value jsonb
);

-- Proof of indexing: one row per block height, a hash chain.
CREATE TABLE IF NOT EXISTS _poi (
  id bigint PRIMARY KEY,
  chain_block_hash bytea,
  hash bytea,
  parent_hash bytea,
  operation_hash_root bytea
);

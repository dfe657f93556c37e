-- A block by its hash (The Graph dialect's `block: { hash }`, idx-query --subgraph): one probe
-- instead of a scan of one row per block. Runs with search_path set to the project schema.

CREATE INDEX IF NOT EXISTS _poi_chain_block_hash ON _poi (chain_block_hash);

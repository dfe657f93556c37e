-- Chain data of an idx-shard schema (not of project schemas: runMigrations reads only the .sql files
-- directly in migrations/). Runs with search_path set to the shard's schema.
-- Append-only: never edit a migration once it has landed; add a new file instead.
-- Objects are kept as the upstream sent them (text, so key order survives), beside the columns lookups need.

-- tail, head, synced height, chain identity
CREATE TABLE IF NOT EXISTS shard_state (
  key text PRIMARY KEY,
  value jsonb NOT NULL
);

-- the block with its transactions as hashes
CREATE TABLE IF NOT EXISTS blocks (
  number bigint PRIMARY KEY,
  hash text NOT NULL,
  parent_hash text NOT NULL,
  tx_count integer NOT NULL,
  body text NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS blocks_hash ON blocks (hash);

-- position: the transaction's place in its block
CREATE TABLE IF NOT EXISTS transactions (
  block_number bigint NOT NULL,
  position integer NOT NULL,
  hash text NOT NULL,
  tx text NOT NULL,
  receipt text NOT NULL,
  PRIMARY KEY (block_number, position)
);
CREATE INDEX IF NOT EXISTS transactions_hash ON transactions (hash);

-- position: the log's place in its block; address and topics lowercase 0x-hex
CREATE TABLE IF NOT EXISTS logs (
  block_number bigint NOT NULL,
  position integer NOT NULL,
  address text NOT NULL,
  topic0 text,
  topic1 text,
  topic2 text,
  topic3 text,
  log text NOT NULL,
  PRIMARY KEY (block_number, position)
);
CREATE INDEX IF NOT EXISTS logs_address ON logs (address, block_number);
CREATE INDEX IF NOT EXISTS logs_topic0 ON logs (topic0, block_number);

import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { defaultMigrationsDir, loadMigrations, runMigrations } from './run-migrations.ts';
import { shardReads } from './shard-reads.ts';
import { shardTables } from './shard-tables.ts';
import { shardWrites } from './shard-writes.ts';

/** One block as idx-shard keeps it: the upstream's JSON texts plus what lookups need. */
export interface ShardBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** the block object, transactions as hashes */
  body: string;
  transactions: { hash: string; tx: string; receipt: string }[];
  logs: { address: string; topics: readonly string[]; log: string }[];
}

export interface StoredBlock {
  number: number;
  hash: string;
  txCount: number;
  body: string;
}

/** Heights whose data may be answered: `[from, to]` and always genesis. */
export interface ServedRange {
  from: number;
  to: number;
}

export interface LogQuery {
  fromBlock: number;
  toBlock: number;
  /** any of these (lowercase); undefined = any address */
  addresses?: readonly string[];
  /** per position: any of these (lowercase), or null for any topic */
  topics: readonly (readonly string[] | null)[];
  limit: number;
}

export interface ShardStore {
  /** creates the schema and its tables (migrations/shard), once */
  migrate(): Promise<void>;
  getState(): Promise<Record<string, unknown>>;
  setState(values: Record<string, unknown>): Promise<void>;
  /** Replaces the heights of `blocks` and sets `state`, in one transaction. */
  writeBlocks(blocks: readonly ShardBlock[], state: Record<string, unknown>): Promise<void>;
  /** Removes every block above `height` and sets `state`, in one transaction (a reorg, a lowered head). */
  rewind(height: number, state: Record<string, unknown>): Promise<void>;
  /** Removes up to `limit` of the lowest blocks in `(0, below)`; answers how many it removed. */
  pruneBelow(below: number, limit: number): Promise<number>;
  /** Removes up to `limit` of the highest blocks above `above`; answers how many it removed. */
  pruneAbove(above: number, limit: number): Promise<number>;
  /** The lowest block kept other than genesis. */
  lowestBlock(): Promise<number | undefined>;
  hashes(numbers: readonly number[]): Promise<Map<number, string>>;
  blockByNumber(number: number): Promise<StoredBlock | undefined>;
  blockByHash(hash: string, served: ServedRange): Promise<StoredBlock | undefined>;
  /** the block's transaction objects, in block order */
  transactions(blockNumber: number): Promise<string[]>;
  transactionAt(blockNumber: number, position: number): Promise<string | undefined>;
  receipts(blockNumber: number): Promise<string[]>;
  transactionByHash(hash: string, served: ServedRange): Promise<string | undefined>;
  receiptByHash(hash: string, served: ServedRange): Promise<string | undefined>;
  /** Matching logs in chain order, at most `limit`. */
  logs(query: LogQuery): Promise<{ blockNumber: number; log: string }[]>;
}

export interface ShardStoreOptions {
  db: Kysely<any>;
  schema: string;
}

export function createShardStore({ db, schema }: ShardStoreOptions): ShardStore {
  const tables = shardTables(schema);
  return {
    async migrate() {
      const migrations = await loadMigrations(join(defaultMigrationsDir(), 'shard'));
      await runMigrations(db, schema, migrations);
    },
    ...shardWrites(db, tables),
    ...shardReads(db, tables),
  };
}

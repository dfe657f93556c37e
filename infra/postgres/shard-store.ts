import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { defaultMigrationsDir, loadMigrations, runMigrations } from './run-migrations.ts';
import { execute, executeCount, qualified, type Executor } from './sql.ts';

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
  const t = (name: string) => qualified(schema, name);
  const blocks = t('blocks');
  const transactions = t('transactions');
  const logs = t('logs');
  const state = t('shard_state');
  const served = (column: string, first: number) => `(${column} = 0 or ${column} between $${first} and $${first + 1})`;

  async function putState(tx: Executor, values: Record<string, unknown>): Promise<void> {
    const keys = Object.keys(values);
    if (keys.length === 0) return;
    await execute(
      tx,
      `insert into ${state} (key, value) select k, v from unnest($1::text[], $2::jsonb[]) as s(k, v)
       on conflict (key) do update set value = excluded.value`,
      [keys, keys.map((k) => JSON.stringify(values[k] ?? null))],
    );
  }

  /** Deletes the blocks (and their transactions and logs) where `condition` holds, `$col` standing for the height column; answers how many blocks. */
  async function deleteBlocks(tx: Executor, condition: string, params: unknown[]): Promise<number> {
    await execute(tx, `delete from ${logs} where ${condition.replaceAll('$col', 'block_number')}`, params);
    await execute(tx, `delete from ${transactions} where ${condition.replaceAll('$col', 'block_number')}`, params);
    return executeCount(tx, `delete from ${blocks} where ${condition.replaceAll('$col', 'number')}`, params);
  }

  const toBlock = (r: { number: string | number; hash: string; tx_count: number; body: string }): StoredBlock => ({
    number: Number(r.number),
    hash: r.hash,
    txCount: r.tx_count,
    body: r.body,
  });

  return {
    async migrate() {
      const migrations = await loadMigrations(join(defaultMigrationsDir(), 'shard'));
      await runMigrations(db, schema, migrations);
    },

    async getState() {
      const rows = await execute<{ key: string; value: unknown }>(db, `select key, value from ${state}`);
      return Object.fromEntries(rows.map((r) => [r.key, r.value]));
    },

    async setState(values) {
      await putState(db, values);
    },

    async writeBlocks(list, values) {
      await db.transaction().execute(async (tx) => {
        if (list.length > 0) {
          const from = Math.min(...list.map((b) => b.number));
          const to = Math.max(...list.map((b) => b.number));
          await deleteBlocks(tx, '$col between $1 and $2', [from, to]);
          await execute(
            tx,
            `insert into ${blocks} (number, hash, parent_hash, tx_count, body)
             select * from unnest($1::bigint[], $2::text[], $3::text[], $4::int[], $5::text[])`,
            [
              list.map((b) => b.number),
              list.map((b) => b.hash),
              list.map((b) => b.parentHash),
              list.map((b) => b.transactions.length),
              list.map((b) => b.body),
            ],
          );
          const txs = list.flatMap((b) => b.transactions.map((x, i) => ({ n: b.number, i, ...x })));
          if (txs.length > 0) {
            await execute(
              tx,
              `insert into ${transactions} (block_number, position, hash, tx, receipt)
               select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[])`,
              [txs.map((x) => x.n), txs.map((x) => x.i), txs.map((x) => x.hash), txs.map((x) => x.tx), txs.map((x) => x.receipt)],
            );
          }
          const ls = list.flatMap((b) => b.logs.map((l, i) => ({ n: b.number, i, ...l })));
          if (ls.length > 0) {
            const topic = (k: number) => ls.map((l) => l.topics[k] ?? null);
            await execute(
              tx,
              `insert into ${logs} (block_number, position, address, topic0, topic1, topic2, topic3, log)
               select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::text[])`,
              [ls.map((l) => l.n), ls.map((l) => l.i), ls.map((l) => l.address), topic(0), topic(1), topic(2), topic(3), ls.map((l) => l.log)],
            );
          }
        }
        await putState(tx, values);
      });
    },

    async rewind(height, values) {
      await db.transaction().execute(async (tx) => {
        await deleteBlocks(tx, '$col > $1', [height]);
        await putState(tx, values);
      });
    },

    async pruneBelow(below, limit) {
      return db.transaction().execute(async (tx) => {
        const [row] = await execute<{ n: string | null }>(
          tx,
          `select max(number) as n from (select number from ${blocks} where number > 0 and number < $1 order by number limit $2) s`,
          [below, limit],
        );
        return row?.n == null ? 0 : deleteBlocks(tx, '$col > 0 and $col <= $1', [Number(row.n)]);
      });
    },

    async pruneAbove(above, limit) {
      return db.transaction().execute(async (tx) => {
        const [row] = await execute<{ n: string | null }>(
          tx,
          `select min(number) as n from (select number from ${blocks} where number > $1 order by number desc limit $2) s`,
          [above, limit],
        );
        return row?.n == null ? 0 : deleteBlocks(tx, '$col >= $1', [Number(row.n)]);
      });
    },

    async lowestBlock() {
      const [row] = await execute<{ n: string | null }>(db, `select min(number) as n from ${blocks} where number > 0`);
      return row?.n == null ? undefined : Number(row.n);
    },

    async hashes(numbers) {
      if (numbers.length === 0) return new Map();
      const rows = await execute<{ number: string; hash: string }>(db, `select number, hash from ${blocks} where number = any($1::bigint[])`, [numbers]);
      return new Map(rows.map((r) => [Number(r.number), r.hash]));
    },

    async blockByNumber(number) {
      const [row] = await execute<{ number: string; hash: string; tx_count: number; body: string }>(
        db,
        `select number, hash, tx_count, body from ${blocks} where number = $1`,
        [number],
      );
      return row === undefined ? undefined : toBlock(row);
    },

    async blockByHash(hash, range) {
      const [row] = await execute<{ number: string; hash: string; tx_count: number; body: string }>(
        db,
        `select number, hash, tx_count, body from ${blocks} where hash = $1 and ${served('number', 2)}`,
        [hash.toLowerCase(), range.from, range.to],
      );
      return row === undefined ? undefined : toBlock(row);
    },

    async transactions(blockNumber) {
      const rows = await execute<{ tx: string }>(db, `select tx from ${transactions} where block_number = $1 order by position`, [blockNumber]);
      return rows.map((r) => r.tx);
    },

    async transactionAt(blockNumber, position) {
      const [row] = await execute<{ tx: string }>(db, `select tx from ${transactions} where block_number = $1 and position = $2`, [blockNumber, position]);
      return row?.tx;
    },

    async receipts(blockNumber) {
      const rows = await execute<{ receipt: string }>(db, `select receipt from ${transactions} where block_number = $1 order by position`, [blockNumber]);
      return rows.map((r) => r.receipt);
    },

    async transactionByHash(hash, range) {
      const [row] = await execute<{ tx: string }>(db, `select tx from ${transactions} where hash = $1 and ${served('block_number', 2)} limit 1`, [
        hash.toLowerCase(),
        range.from,
        range.to,
      ]);
      return row?.tx;
    },

    async receiptByHash(hash, range) {
      const [row] = await execute<{ receipt: string }>(db, `select receipt from ${transactions} where hash = $1 and ${served('block_number', 2)} limit 1`, [
        hash.toLowerCase(),
        range.from,
        range.to,
      ]);
      return row?.receipt;
    },

    async logs(query) {
      const params: unknown[] = [query.fromBlock, query.toBlock];
      const where = ['block_number between $1 and $2'];
      if (query.addresses !== undefined) {
        params.push(query.addresses);
        where.push(`address = any($${params.length}::text[])`);
      }
      query.topics.forEach((alternatives, k) => {
        if (alternatives === null) return;
        params.push(alternatives);
        where.push(`topic${k} = any($${params.length}::text[])`);
      });
      params.push(query.limit);
      const rows = await execute<{ block_number: string; log: string }>(
        db,
        `select block_number, log from ${logs} where ${where.join(' and ')} order by block_number, position limit $${params.length}`,
        params,
      );
      return rows.map((r) => ({ blockNumber: Number(r.block_number), log: r.log }));
    },
  };
}

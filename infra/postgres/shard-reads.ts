import type { Kysely } from 'kysely';
import type { LogQuery, ShardStore, StoredBlock } from './shard-store.ts';
import type { ShardTables } from './shard-tables.ts';
import { execute } from './sql.ts';

type ShardReads = Omit<ShardStore, 'migrate' | 'setState' | 'writeBlocks' | 'rewind' | 'pruneBelow' | 'pruneAbove'>;

// a height served: genesis, or within the served range (two parameters from `first`)
const served = (column: string, first: number) => `(${column} = 0 or ${column} between $${first} and $${first + 1})`;

const toBlock = (r: { number: string | number; hash: string; tx_count: number; body: string }): StoredBlock => ({
  number: Number(r.number),
  hash: r.hash,
  txCount: r.tx_count,
  body: r.body,
});

/** The logs query: matching logs in chain order, at most `limit`; any of a position's topics, any of the addresses. */
export function logsSql(table: string, query: LogQuery): { text: string; values: unknown[] } {
  const values: unknown[] = [query.fromBlock, query.toBlock];
  const where = ['block_number between $1 and $2'];
  if (query.addresses !== undefined) {
    values.push(query.addresses);
    where.push(`address = any($${values.length}::text[])`);
  }
  query.topics.forEach((alternatives, k) => {
    if (alternatives === null) return;
    values.push(alternatives);
    where.push(`topic${k} = any($${values.length}::text[])`);
  });
  values.push(query.limit);
  return { text: `select block_number, log from ${table} where ${where.join(' and ')} order by block_number, position limit $${values.length}`, values };
}

/** idx-shard's reads: blocks, transactions, receipts and logs as the upstream's JSON texts. */
export function shardReads(db: Kysely<any>, tables: ShardTables): ShardReads {
  return {
    async lowestBlock() {
      const [row] = await execute<{ n: string | null }>(db, `select min(number) as n from ${tables.blocks} where number > 0`);
      return row?.n == null ? undefined : Number(row.n);
    },

    async hashes(numbers) {
      if (numbers.length === 0) return new Map();
      const rows = await execute<{ number: string; hash: string }>(db, `select number, hash from ${tables.blocks} where number = any($1::bigint[])`, [numbers]);
      return new Map(rows.map((r) => [Number(r.number), r.hash]));
    },

    async blockByNumber(number) {
      const [row] = await execute<{ number: string; hash: string; tx_count: number; body: string }>(
        db,
        `select number, hash, tx_count, body from ${tables.blocks} where number = $1`,
        [number],
      );
      return row === undefined ? undefined : toBlock(row);
    },

    async blockByHash(hash, range) {
      const [row] = await execute<{ number: string; hash: string; tx_count: number; body: string }>(
        db,
        `select number, hash, tx_count, body from ${tables.blocks} where hash = $1 and ${served('number', 2)}`,
        [hash.toLowerCase(), range.from, range.to],
      );
      return row === undefined ? undefined : toBlock(row);
    },

    async transactions(blockNumber) {
      const rows = await execute<{ tx: string }>(db, `select tx from ${tables.transactions} where block_number = $1 order by position`, [blockNumber]);
      return rows.map((r) => r.tx);
    },

    async transactionAt(blockNumber, position) {
      const [row] = await execute<{ tx: string }>(db, `select tx from ${tables.transactions} where block_number = $1 and position = $2`, [
        blockNumber,
        position,
      ]);
      return row?.tx;
    },

    async receipts(blockNumber) {
      const rows = await execute<{ receipt: string }>(db, `select receipt from ${tables.transactions} where block_number = $1 order by position`, [
        blockNumber,
      ]);
      return rows.map((r) => r.receipt);
    },

    async transactionByHash(hash, range) {
      const [row] = await execute<{ tx: string }>(db, `select tx from ${tables.transactions} where hash = $1 and ${served('block_number', 2)} limit 1`, [
        hash.toLowerCase(),
        range.from,
        range.to,
      ]);
      return row?.tx;
    },

    async receiptByHash(hash, range) {
      const [row] = await execute<{ receipt: string }>(
        db,
        `select receipt from ${tables.transactions} where hash = $1 and ${served('block_number', 2)} limit 1`,
        [hash.toLowerCase(), range.from, range.to],
      );
      return row?.receipt;
    },

    async getState() {
      const rows = await execute<{ key: string; value: unknown }>(db, `select key, value from ${tables.state}`);
      return Object.fromEntries(rows.map((r) => [r.key, r.value]));
    },

    async logs(query) {
      const { text, values } = logsSql(tables.logs, query);
      const rows = await execute<{ block_number: string; log: string }>(db, text, values);
      return rows.map((r) => ({ blockNumber: Number(r.block_number), log: r.log }));
    },
  };
}

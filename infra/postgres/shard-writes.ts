import type { Kysely } from 'kysely';
import type { ShardBlock, ShardStore } from './shard-store.ts';
import type { ShardTables } from './shard-tables.ts';
import { execute, executeCount, type Executor } from './sql.ts';

type ShardWrites = Pick<ShardStore, 'setState' | 'writeBlocks' | 'rewind' | 'pruneBelow' | 'pruneAbove'>;

/** idx-shard's writes: blocks with their transactions and logs, replaced, rewound and pruned with the state, each in one transaction. */
export function shardWrites(db: Kysely<any>, tables: ShardTables): ShardWrites {
  async function putState(tx: Executor, values: Record<string, unknown>): Promise<void> {
    const keys = Object.keys(values);
    if (keys.length === 0) return;
    await execute(
      tx,
      `insert into ${tables.state} (key, value) select k, v from unnest($1::text[], $2::jsonb[]) as s(k, v)
       on conflict (key) do update set value = excluded.value`,
      [keys, keys.map((k) => JSON.stringify(values[k] ?? null))],
    );
  }

  /** Deletes the blocks (and their transactions and logs) where `condition` holds, `$col` standing for the height column; answers how many blocks. */
  async function deleteBlocks(tx: Executor, condition: string, params: unknown[]): Promise<number> {
    await execute(tx, `delete from ${tables.logs} where ${condition.replaceAll('$col', 'block_number')}`, params);
    await execute(tx, `delete from ${tables.transactions} where ${condition.replaceAll('$col', 'block_number')}`, params);
    return executeCount(tx, `delete from ${tables.blocks} where ${condition.replaceAll('$col', 'number')}`, params);
  }

  return {
    async setState(values) {
      await putState(db, values);
    },

    async writeBlocks(list: readonly ShardBlock[], values) {
      await db.transaction().execute(async (tx) => {
        if (list.length > 0) {
          const from = Math.min(...list.map((b) => b.number));
          const to = Math.max(...list.map((b) => b.number));
          await deleteBlocks(tx, '$col between $1 and $2', [from, to]);
          await execute(
            tx,
            `insert into ${tables.blocks} (number, hash, parent_hash, tx_count, body)
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
              `insert into ${tables.transactions} (block_number, position, hash, tx, receipt)
               select * from unnest($1::bigint[], $2::int[], $3::text[], $4::text[], $5::text[])`,
              [txs.map((x) => x.n), txs.map((x) => x.i), txs.map((x) => x.hash), txs.map((x) => x.tx), txs.map((x) => x.receipt)],
            );
          }
          const ls = list.flatMap((b) => b.logs.map((l, i) => ({ n: b.number, i, ...l })));
          if (ls.length > 0) {
            const topic = (k: number) => ls.map((l) => l.topics[k] ?? null);
            await execute(
              tx,
              `insert into ${tables.logs} (block_number, position, address, topic0, topic1, topic2, topic3, log)
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
          `select max(number) as n from (select number from ${tables.blocks} where number > 0 and number < $1 order by number limit $2) s`,
          [below, limit],
        );
        return row?.n == null ? 0 : deleteBlocks(tx, '$col > 0 and $col <= $1', [Number(row.n)]);
      });
    },

    async pruneAbove(above, limit) {
      return db.transaction().execute(async (tx) => {
        const [row] = await execute<{ n: string | null }>(
          tx,
          `select min(number) as n from (select number from ${tables.blocks} where number > $1 order by number desc limit $2) s`,
          [above, limit],
        );
        return row?.n == null ? 0 : deleteBlocks(tx, '$col >= $1', [Number(row.n)]);
      });
    },
  };
}

import t from 'tap';
import { runNode } from '../apps/node/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from '../infra/postgres/test-backends.ts';
import { BACKENDS, envFor, nodeOptions, openDb, setupErc20Chain } from './support/erc20-chain.ts';
import { balanceOf, copyProject } from './support/erc20-project.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { gql, gqlData, startQueryService } from './support/query-client.ts';

exitWhenDone();

// 30 blocks of 20 transfers: 600 transfers plus 10 mints, ~110 accounts with many balance versions.
const { anvil, client, workload, built } = await setupErc20Chain(t, 30);

interface TransferRow {
  id: string;
  block_height: string;
  value: string;
  from_id: string;
  to_id: string;
  transaction_hash: string;
  timestamp: Date;
}

for (const kind of BACKENDS) {
  t.test(`${kind}: GraphQL over the indexed ERC20 example`, async (t) => {
    const dir = await copyProject(t, built);
    const schema = uniqueSchemaName('idx_q');
    const logger = createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} });
    await runNode({
      options: nodeOptions(dir, anvil.url, ['--db-schema', schema]),
      logger,
      version: 'test',
      env: envFor(kind),
      signal: new AbortController().signal,
      settings: { stopAtHeight: workload.toBlock },
    });
    const db = await openDb(kind, dir);
    t.teardown(async () => {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      await db.close();
    });
    const s = quoteIdent(schema);
    const transfers = await execute<TransferRow>(
      db.kysely,
      `select id, block_height::text, value::text, from_id, to_id, transaction_hash, timestamp from ${s}.transfers t order by t.block_height, t.id`,
    );
    const { url } = await startQueryService(t, db, schema);
    const unsafe = await startQueryService(t, db, schema, ['--unsafe', '--query-limit', '50', '--query-complexity', '20']);

    await t.test('a page ordered by block with nested accounts, and totalCount', async (t) => {
      const data = await gqlData(
        url,
        `{ transfers(first: 5, orderBy: BLOCK_HEIGHT_ASC) { totalCount nodes { id blockHeight value fromId from { id balance } to { id } timestamp } pageInfo { hasNextPage hasPreviousPage } } }`,
      );
      t.equal(data.transfers.totalCount, transfers.length);
      t.same(
        data.transfers.nodes.map((n: any) => n.id),
        transfers.slice(0, 5).map((r) => r.id),
      );
      const first = data.transfers.nodes[0];
      t.equal(first.blockHeight, transfers[0]!.block_height, 'BigInt as a decimal string');
      t.equal(first.value, transfers[0]!.value);
      t.equal(first.from.id, transfers[0]!.from_id, 'the relation resolves');
      t.equal(first.timestamp, transfers[0]!.timestamp.toISOString());
      t.same(data.transfers.pageInfo, { hasNextPage: true, hasPreviousPage: false });
    });

    await t.test('time travel: balances at a height equal balanceOf at that height', async (t) => {
      const h = workload.fromBlock + 10;
      const who = workload.recipients.slice(0, 5).map((a) => a.toLowerCase());
      const data = await gqlData(url, `query($h: String!, $ids: [String!]) { accounts(blockHeight: $h, filter: {id: {inInsensitive: $ids}}) { nodes { id balance } } }`, { h: String(h), ids: who });
      for (const n of data.accounts.nodes) t.equal(n.balance, String(await balanceOf(client, workload.token, n.id, h)), `${n.id} at ${h}`);
    });

    await t.test('aggregates need --unsafe for sum', async (t) => {
      const q = `{ transfers { aggregates { count distinctCount { fromId } sum { value } } } }`;
      const safe = await gql(url, q);
      t.equal(safe.errors?.[0]?.extensions?.code, 'UNSAFE_AGGREGATE_DISABLED');
      t.match(safe.errors?.[0]?.message, /--unsafe/);
      t.equal(safe.data?.transfers.aggregates.count, transfers.length);
      const data = await gqlData(unsafe.url, q);
      t.equal(data.transfers.aggregates.sum.value, transfers.reduce((a, r) => a + BigInt(r.value), 0n).toString());
      t.equal(Number(data.transfers.aggregates.distinctCount.fromId), new Set(transfers.map((r) => r.from_id)).size);
    });
  });
}

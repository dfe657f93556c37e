import t, { type Test } from 'tap';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, PROGRAM_BACKEND } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { call, shardPlace, startShard, waitForHeight } from './support/shard.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';

exitWhenDone();

const kind = BACKENDS[BACKENDS.length - 1]!;
const { anvil, client, workload, built } = await setupErc20Chain(t, 16);
const head = Number(await client.request('eth_blockNumber'));
const split = workload.fromBlock + 7;

/** Indexes the ERC20 starter project from these endpoints; answers its tables. */
async function index(t: Test, endpoints: string[]) {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_shard_node');
  await indexInProcess(kind, dir, endpoints[0]!, ['--db-schema', schema, ...endpoints.slice(1).flatMap((e) => ['--network-endpoint', e])], workload.toBlock);
  const db = await openIndexedDb(t, kind, dir, [schema]);
  return erc20Tables(db, schema);
}

t.test(`${kind}: idx-node over two shards [0, ${split}] and [${split + 1}, ∞) writes the tables it writes from the chain itself`, async (t) => {
  const low = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND), [`-shardend=${split}`, '--batch-size', '50']);
  const high = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND), [`-shardstart=${split + 1}`, '--batch-size', '50']);
  await Promise.all([waitForHeight(low.url, split), waitForHeight(high.url, head)]);
  t.match((await call(low.url, 'idx_dataInfo')).result, { desiredChainDataStart: 0, desiredChainDataEnd: split });
  t.match((await call(high.url, 'idx_dataInfo')).result, { desiredChainDataStart: split + 1, desiredChainDataEnd: null });

  const direct = await index(t, [anvil.url]);
  const sharded = await index(t, [low.url, high.url]);
  t.ok(direct.transfers.length > 0, `${direct.transfers.length} transfers indexed`);
  t.ok(
    direct.transfers.some((r) => Number(r.block_height) <= split) && direct.transfers.some((r) => Number(r.block_height) > split),
    'on both sides of the split',
  );
  t.same(sharded.transfers, direct.transfers, 'the same transfers');
  t.same(sharded.accounts, direct.accounts, 'the same account versions');
  t.same(sharded.starters, direct.starters, 'the block handler saw the same blocks');
});

import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { SYSTEM_EVENTS_KEY } from '../infra/chains/substrate/create-substrate-source.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { buildSubstrateStarter } from '../test/support/substrate-project.ts';
import { compareSchemas } from './compare-schemas.ts';
import { indexOnce, type IndexingRun } from './index-once.ts';
import { SUBQL_NODE_VERSION, subqlIndexOnce } from './subql-node.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

/**
 * The Substrate starter (examples/substrate) indexing a chopsticks chain as a user runs it (the
 * idx-node CLI, historical mode): BLOCKS blocks, each with one `utility.batch` of TRANSFERS
 * `balances.transferKeepAlive` calls from //Alice (TRANSFERS `balances.Transfer` events per block, each
 * a Transfer entity and two Account updates), plus the fee and reward events of the runtime.
 * Events/s counts the events the handlers ran for. With PostgreSQL (DB_HOST) SubQuery's own
 * @subql/node indexes the same folder into another schema (installed on first use, see
 * subql-node.ts), its figures are printed beside idx's and every version of every entity row of the
 * two schemas is compared: the bench fails when they differ. First, two floors (see `floors`).
 */
const BLOCKS = Number(process.env.BENCH_SUBSTRATE_BLOCKS ?? 300);
const TRANSFERS = Number(process.env.BENCH_SUBSTRATE_TRANSFERS ?? 30);

const bench: Benchmark = {
  name: 'substrate: index the Substrate transfer workload',
  async run() {
    const td = teardowns();
    try {
      const chain = await startSubstrateChain();
      td.teardown(() => chain.close());
      const w = await createSubstrateWorkload(chain);
      td.teardown(() => w.close());
      const t0 = performance.now();
      const recipients = Array.from({ length: TRANSFERS }, (_, i) => w.api.createType('AccountId32', new Uint8Array(32).fill(i + 1)).toString());
      for (let b = 0; b < BLOCKS; b++) {
        await w.batch(
          'alice',
          recipients.map((to, i) => [to, 10n ** 10n + BigInt(b * TRANSFERS + i)]),
        );
        await w.block();
      }
      const toBlock = await chain.height();
      console.log(`workload: ${BLOCKS} blocks × ${TRANSFERS} transfers on chopsticks in ${((performance.now() - t0) / 1000).toFixed(1)} s (head ${toBlock})`);

      await floors(chain.httpUrl, toBlock);
      const built = await buildSubstrateStarter(td);

      const backends: { label: string; env: Record<string, string | undefined> }[] = [];
      if (process.env.DB_HOST) {
        const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
        backends.push({ label: 'PostgreSQL', env: { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } });
      } else console.log('PostgreSQL: skipped (set DB_HOST)');
      backends.push({ label: 'PGlite', env: {} });
      for (const { label, env } of backends) {
        const dir = await copyProject(td, built);
        const schema = uniqueSchemaName('idx_bench_substrate');
        if (env.DB_HOST !== undefined)
          td.teardown(async () => {
            const db = await createDb({ env });
            await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
            await db.close();
          });
        // what the handlers ran for: every balances.Transfer, batch call and 10th block
        const events = await countHandled(w, toBlock);
        const ours = await indexOnce(label, dir, chain.wsUrl, env, schema, toBlock, events, toBlock);
        if (env.DB_HOST !== undefined) await compareWithSubql(td, dir, chain.wsUrl, env, schema, toBlock, events, ours);
      }
    } finally {
      await td.run();
    }
  },
};

/**
 * The floors beside the indexers' figures: the chain alone serving what idx-node fetches for the
 * range (block hashes, blocks with extrinsics, System.Events, in batches of 100 as idx-node asks,
 * with no decoding), and `@polkadot/types` alone decoding one block of it (a SignedBlock and its
 * Vec<EventRecord>, which idx and SubQuery both do for every block), in plain Node after a warm-up.
 */
async function floors(url: string, toBlock: number) {
  const client = createRpcClient({ endpoints: [{ url }], maxBatchSize: 100 });
  const t0 = performance.now();
  const hashes = await client.batch<string>(Array.from({ length: toBlock }, (_, i) => ({ method: 'chain_getBlockHash', params: [i + 1] })));
  await Promise.all([
    client.batch(hashes.map((h) => ({ method: 'chain_getBlock', params: [h] }))),
    client.batch(hashes.map((h) => ({ method: 'state_getStorage', params: [SYSTEM_EVENTS_KEY, h] }))),
  ]);
  const seconds = (performance.now() - t0) / 1000;
  console.log(
    `the chain alone: blocks 1..${toBlock} with their extrinsics and events served in ${seconds.toFixed(1)} s = ${(toBlock / seconds).toFixed(0)} blocks/s`,
  );

  const head = hashes[hashes.length - 1]!;
  const [metadata, properties, block, events] = await Promise.all([
    client.request<`0x${string}`>('state_getMetadata', [head]),
    client.request('system_properties'),
    client.request('chain_getBlock', [head]),
    client.request('state_getStorage', [SYSTEM_EVENTS_KEY, head]),
  ]);
  const { Metadata, TypeRegistry } = await import('@polkadot/types');
  const registry = new TypeRegistry();
  registry.setChainProperties(registry.createType('ChainProperties', properties));
  registry.setMetadata(new Metadata(registry, metadata));
  const decode = () => [registry.createType('SignedBlock', block), registry.createType('Vec<EventRecord>', events)];
  for (let i = 0; i < 20; i++) decode();
  const d0 = performance.now();
  for (let i = 0; i < 100; i++) decode();
  const perBlock = (performance.now() - d0) / 100;
  console.log(
    `@polkadot/types alone: decoding block ${toBlock} (a SignedBlock and its events) takes ${perBlock.toFixed(1)} ms = at most ${(1000 / perBlock).toFixed(0)} blocks/s on one core`,
  );
}

/**
 * SubQuery's @subql/node on the same project folder, chain and database: its figures beside idx's,
 * then every version of every entity row compared. Unequal tables fail the bench.
 */
async function compareWithSubql(
  td: ReturnType<typeof teardowns>,
  dir: string,
  endpoint: string,
  env: Record<string, string | undefined>,
  schema: string,
  toBlock: number,
  events: number,
  ours: IndexingRun,
) {
  const theirs = `${schema}_subql`;
  td.teardown(async () => {
    const db = await createDb({ env });
    await execute(db.kysely, `drop schema if exists ${quoteIdent(theirs)} cascade`);
    await db.close();
  });
  const reference = await subqlIndexOnce(`@subql/node ${SUBQL_NODE_VERSION}, PostgreSQL`, dir, endpoint, env, theirs, toBlock, events);
  console.log(
    `idx / @subql/node: ${(ours.eventsPerSecond / reference.eventsPerSecond).toFixed(1)}× the events/s, ` +
      `${(ours.peakRssMiB / reference.peakRssMiB).toFixed(2)}× the peak RSS`,
  );
  const db = await createDb({ env });
  try {
    const { rows, differences } = await compareSchemas(db.kysely, schema, theirs, ['transfers', 'accounts', 'batches', 'block_samples']);
    if (differences.length > 0) throw new Error(`idx's tables differ from @subql/node's:\n${differences.join('\n')}`);
    console.log(`tables equal: ${rows} row versions of transfers, accounts, batches and block_samples, as @subql/node wrote them`);
  } finally {
    await db.close();
  }
}

/** Handler calls of the starter over blocks 1..to: balances.Transfer events, utility.batchAll calls, every 10th block. */
async function countHandled(w: Awaited<ReturnType<typeof createSubstrateWorkload>>, to: number): Promise<number> {
  let n = Math.floor(to / 10);
  for (let h = 1; h <= to; h++) {
    const at = await w.api.at(await w.api.rpc.chain.getBlockHash(h));
    n += (await at.query.system.events()).filter((e) => e.event.section === 'balances' && e.event.method === 'Transfer').length;
  }
  return n;
}

export default bench;

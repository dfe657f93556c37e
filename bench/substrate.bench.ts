import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { copyProject } from '../test/support/erc20-project.ts';
import { buildSubstrateStarter } from '../test/support/substrate-project.ts';
import { indexOnce } from './index-once.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

/**
 * The Substrate starter (examples/substrate) indexing a chopsticks chain as a user runs it (the
 * idx-node CLI, historical mode): BLOCKS blocks, each with one `utility.batch` of TRANSFERS
 * `balances.transferKeepAlive` calls from //Alice (TRANSFERS `balances.Transfer` events per block, each
 * a Transfer entity and two Account updates), plus the fee and reward events of the runtime.
 * Events/s counts the events the handlers ran for.
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
        await indexOnce(label, dir, chain.wsUrl, env, schema, toBlock, events, toBlock);
      }
    } finally {
      await td.run();
    }
  },
};

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

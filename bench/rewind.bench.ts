import { rewindProject } from '../apps/node/indexing/rewind-project.ts';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { parseSchema } from '../domain/entities/parse-schema.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor } from '../test/support/node-backends.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { runNodeCli } from '../test/support/watched-node.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

/**
 * The rewind behind `reindex` and fork rollbacks, on the node bench's ERC20 workload (BLOCKS blocks ×
 * 20 Transfers, 20 senders, 1,000 recipients) indexed into PostgreSQL with --proof-of-index and
 * --unfinalized-blocks: the time to rewind the last 1,000 blocks (entity versions, _poi, metadata).
 */
const BLOCKS = Number(process.env.BENCH_NODE_BLOCKS ?? 2000);
const REWIND = Number(process.env.BENCH_REWIND_BLOCKS ?? 1000);

const bench: Benchmark = {
  name: 'node: rewind 1,000 blocks of the ERC20 workload',
  async run() {
    if (!process.env.DB_HOST) {
      console.log('rewind: skipped (set DB_HOST; the figure is for PostgreSQL)');
      return;
    }
    const td = teardowns();
    try {
      const anvil = await startAnvil();
      td.teardown(() => anvil.stop());
      const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
      const w = await makeErc20Workload(client, { blocks: BLOCKS, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 20, recipients: 1000 });
      await client.request('anvil_mine', ['0x40']);
      const dir = await copyProject(td, await buildErc20Project(td));
      const schema = uniqueSchemaName('idx_bench_rewind');
      const env = envFor('postgres');
      const db = await createDb({ env });
      td.teardown(async () => {
        await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
        await db.close();
      });
      const run = await runNodeCli(dir, env, ['--network-endpoint', anvil.url, '--db-schema', schema, '--proof-of-index', '--unfinalized-blocks'], {
        until: w.toBlock,
      });
      if (run.lastSeen === undefined || run.lastSeen < w.toBlock) throw new Error(`indexing stopped at ${run.lastSeen}: ${run.output.slice(-500)}`);

      const model = parseSchema(await readFile(join(dir, 'schema.graphql'), 'utf8'));
      const store = createEntityStore({ db: db.kysely, schema, model, historical: true, timestampField: true });
      const count = async (where: string) => {
        let n = 0;
        for (const table of ['transfers', 'accounts', 'starter_entities'])
          n += (await execute<{ n: number }>(db.kysely, `select count(*)::int n from ${quoteIdent(schema)}.${table} where ${where}`))[0]!.n;
        return n;
      };
      const last = (await store.getMetadata('lastProcessedHeight')) as number;
      const target = last - REWIND;
      const deleted = await count(`lower(__block_range) > ${target}`);
      const reopened = await count(`not upper_inf(__block_range) and upper(__block_range) > ${target} and lower(__block_range) <= ${target}`);
      const total = await count('true');
      const started = performance.now();
      await rewindProject(store, target);
      const ms = performance.now() - started;
      console.log(
        `rewind of ${REWIND} blocks (${last} → ${target}) into PostgreSQL: ${ms.toFixed(0)} ms; ` +
          `${deleted} versions deleted and ${reopened} reopened of ${total}, plus the _poi rows and metadata above ${target}`,
      );
    } finally {
      await td.run();
    }
  },
};

export default bench;

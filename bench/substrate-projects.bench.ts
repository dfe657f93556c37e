import { spawn } from 'node:child_process';
import { runVariedWorkload, startVariedChain } from '../devchain/varied-substrate-workload.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { compareDumps, dumpEntityTables } from '../test/support/entity-table-dump.ts';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import { SUBSTRATE_FIXTURES } from '../test/support/substrate-fixtures.ts';
import { prepareFixture } from '../test/support/substrate-projects.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import type { Benchmark } from './run.ts';
import { runUntilCommitted, type IndexerRun } from './run-until-committed.ts';
import { runSubqlNode, SUBQL_NODE_VERSION } from './subql-node.ts';
import { teardowns } from './teardowns.ts';

/**
 * The public SubQuery Substrate projects of test/fixtures/substrate-projects, live side by side:
 * each built by `idx build`, then indexed over the varied workload on the local chain by SubQuery's
 * @subql/node and by the idx-node CLI (as users run them, into two schemas of one PostgreSQL), and
 * every version of every entity table compared. Prints per project how each ended, in how long, and
 * what differs. Needs PostgreSQL (DB_HOST); the packages fixtures need beyond idx's own are found in
 * IDX_FIXTURE_DEPS (see scripts/record-substrate-references.ts), else those fixtures do not build.
 */
const bench: Benchmark = {
  name: 'substrate-projects: public SubQuery Substrate projects on idx and @subql/node',
  async run() {
    if (!process.env.DB_HOST) {
      console.log('skipped: set DB_HOST (SubQuery’s node needs PostgreSQL)');
      return;
    }
    const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
    const env = { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };
    const td = teardowns();
    try {
      const chain = await startVariedChain();
      td.teardown(() => chain.close());
      const { lastBlock } = await runVariedWorkload(chain);
      const db = await createDb({ env });
      td.teardown(() => db.close());
      let equal = 0;
      let compared = 0;
      for (const fixture of SUBSTRATE_FIXTURES.filter((f) => f.cannot === undefined)) {
        let prepared;
        try {
          prepared = await prepareFixture(td, fixture, chain.wsUrl);
        } catch (err) {
          console.log(`${fixture.name}: idx build fails: ${(err as Error).message.split('\n')[0]}`);
          continue;
        }
        const theirs = uniqueSchemaName('bench_subql');
        const ours = uniqueSchemaName('bench_idx');
        td.teardown(async () => {
          for (const s of [theirs, ours]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
        });
        const subql = await runSubqlNode(prepared.manifest, env, theirs, lastBlock);
        const idx = await runIdxNode(prepared.manifest, env, ours, lastBlock);
        const differences = compareDumps(await dumpEntityTables(db.kysely, theirs), await dumpEntityTables(db.kysely, ours), undefined, 5);
        compared++;
        if (differences.length === 0 && (subql.error === undefined) === (idx.error === undefined)) equal++;
        console.log(
          `${fixture.name}: @subql/node ${ended(subql)}; idx ${ended(idx)}; ` +
            (differences.length === 0 ? 'tables equal' : `${differences.length} differences:\n  ${differences.join('\n  ')}`),
        );
      }
      console.log(`${equal} of ${compared} projects end as @subql/node ${SUBQL_NODE_VERSION} does with equal tables`);
    } finally {
      await td.run();
    }
  },
};

const ended = (run: IndexerRun) =>
  run.error === undefined ? `indexed to ${run.indexedTo} in ${run.seconds.toFixed(1)} s` : `stopped at ${run.indexedTo ?? 'no block'}: ${run.error}`;

/** The idx-node CLI on a manifest, as a user runs it, until `toBlock` is committed or it stops. */
async function runIdxNode(manifest: string, env: Record<string, string | undefined>, schema: string, toBlock: number): Promise<IndexerRun> {
  const port = await deadPort();
  const child = spawn(
    process.execPath,
    ['--no-node-snapshot', BIN('idx-node'), '-f', manifest, '--db-schema', schema, '-p', String(port), '--output-fmt', 'json', '--log-level', 'warn'],
    { env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  return runUntilCommitted(child, env, schema, toBlock, 120_000);
}

export default bench;

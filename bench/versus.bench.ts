import { copyFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { envFor, openDb } from '../test/support/node-backends.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { cachedErc20Workload } from './cached-workload.ts';
import { compareSchemas } from './compare-schemas.ts';
import { indexOnce, type IndexingRun } from './index-once.ts';
import { workloadOptions } from './node.bench.ts';
import type { Benchmark } from './run.ts';
import { SUBQL_NODE_ETHEREUM_VERSION, subqlIndexOnce, subqlNodeEthereumBin } from './subql-node.ts';
import { teardowns, type Teardowns } from './teardowns.ts';

/**
 * idx against SubQuery as a user meets them: the ERC20 workload W1 (node.bench.ts's: 2,000 blocks, 40,020 events), the
 * starter project unchanged, each indexer spawned from nothing until every row is committed (start-up included), one
 * after the other on the same anvil and PostgreSQL. A round runs idx-node on PostgreSQL, idx-node on PGlite and
 * @subql/node-ethereum on PostgreSQL, SubQuery first in every other round; RUNS rounds (BENCH_VERSUS_RUNS, 3). Every
 * round compares idx's tables with SubQuery's, every version of every row, and fails on a difference; it prints each
 * run's time and peak RSS and the ratios. Needs DB_HOST (SubQuery runs on PostgreSQL only); installs
 * @subql/node-ethereum into a cache folder on first use (bench/subql-node.ts).
 */
const RUNS = Number(process.env.BENCH_VERSUS_RUNS ?? 3);
const BLOCKS = Number(process.env.BENCH_NODE_BLOCKS ?? 2000);
const TABLES = ['transfers', 'accounts', 'starter_entities'];

interface Round {
  idx: IndexingRun;
  pglite: IndexingRun;
  subql: IndexingRun;
}

const bench: Benchmark = {
  name: 'versus: idx-node and @subql/node-ethereum on the ERC20 workload, spawn → every row committed',
  async run() {
    if (!process.env.DB_HOST) {
      console.log('skipped: SubQuery runs on PostgreSQL only; set DB_HOST and the other DB_* variables');
      return;
    }
    const td = teardowns();
    try {
      const { anvil, workload: w } = await cachedErc20Workload(td, workloadOptions(BLOCKS));
      const built = await buildErc20Project(td);
      // SubQuery's build writes the manifest compiled from project.ts beside it; idx's writes it into dist/
      const forSubql = await copyProject(td, built);
      await copyFile(join(forSubql, 'dist', 'project.yaml'), join(forSubql, 'project.yaml'));
      const subqlBin = await subqlNodeEthereumBin();
      const events = w.transfers + w.senders.length; // the workload's transfers plus the mints
      const blocks = w.toBlock - w.startBlock + 1;
      const env = envFor('postgres');
      const rounds: Round[] = [];
      for (let round = 1; round <= RUNS; round++) {
        console.log(`round ${round} of ${RUNS}`);
        const ours = uniqueSchemaName('idx_versus');
        const theirs = `${ours}_subql`;
        const dropAfter = dropping(td, env, [ours, theirs]);
        const pgliteDir = await copyProject(td, built);
        const runIdx = async () => ({
          idx: await indexOnce('idx-node, PostgreSQL', await copyProject(td, built), anvil.url, env, ours, w.toBlock, events, blocks),
          pglite: await indexOnce('idx-node, PGlite', pgliteDir, anvil.url, {}, 'erc20', w.toBlock, events, blocks),
        });
        const runSubql = () =>
          subqlIndexOnce(`@subql/node-ethereum ${SUBQL_NODE_ETHEREUM_VERSION}, PostgreSQL`, forSubql, anvil.url, env, theirs, w.toBlock, events, subqlBin);
        let r: Round;
        if (round % 2 === 1) {
          const i = await runIdx();
          r = { ...i, subql: await runSubql() };
        } else {
          const subql = await runSubql();
          r = { ...(await runIdx()), subql };
        }
        await sameTables(env, ours, theirs, pgliteDir);
        await rm(join(pgliteDir, '.idx-data'), { recursive: true, force: true });
        await dropAfter();
        rounds.push(r);
      }
      printSummary(rounds, events);
    } finally {
      await td.run();
    }
  },
};

/** Drops the schemas now (between rounds, to keep the database small) and again on teardown (after a failure). */
function dropping(td: Teardowns, env: Record<string, string | undefined>, schemas: string[]): () => Promise<void> {
  const drop = async () => {
    const db = await createDb({ env });
    for (const schema of schemas) await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  };
  td.teardown(drop);
  return drop;
}

/** idx's tables, on PostgreSQL and on PGlite, equal SubQuery's: every version of every row. */
async function sameTables(env: Record<string, string | undefined>, ours: string, theirs: string, pgliteDir: string): Promise<void> {
  const db = await createDb({ env });
  const pglite = await openDb('pglite', pgliteDir);
  try {
    for (const [label, schema, oursDb] of [
      ['PostgreSQL', ours, db.kysely],
      ['PGlite', 'erc20', pglite.kysely],
    ] as const) {
      const { rows, differences } = await compareSchemas(db.kysely, schema, theirs, TABLES, oursDb);
      if (differences.length > 0) throw new Error(`idx's tables on ${label} differ from @subql/node-ethereum's:\n${differences.join('\n')}`);
      console.log(`  tables equal on ${label}: ${rows} row versions of ${TABLES.join(', ')}, as @subql/node-ethereum wrote them`);
    }
  } finally {
    await pglite.close();
    await db.close();
  }
}

/** spawn → every row committed, as a user waits */
const wall = (r: IndexingRun): number => r.startupSeconds + r.seconds;

function printSummary(rounds: Round[], events: number): void {
  console.log(`\n  spawn → every row committed, ${events} events (events/s = events ÷ that time):`);
  const line = (label: string, r: IndexingRun, subql: IndexingRun) =>
    `    ${label.padEnd(26)} ${wall(r).toFixed(2).padStart(6)} s ${(events / wall(r)).toFixed(0).padStart(6)} events/s, ` +
    `peak RSS ${r.peakRssMiB.toFixed(0).padStart(4)} MiB` +
    (r === subql ? '' : `  = ${(wall(subql) / wall(r)).toFixed(1)}× SubQuery`);
  rounds.forEach((r, i) => {
    console.log(`  round ${i + 1}`);
    console.log(line('idx-node, PostgreSQL', r.idx, r.subql));
    console.log(line('idx-node, PGlite', r.pglite, r.subql));
    console.log(line(`@subql/node-ethereum ${SUBQL_NODE_ETHEREUM_VERSION}`, r.subql, r.subql));
  });
  const ratios = (pick: (r: Round) => IndexingRun) =>
    rounds
      .map((r) => wall(r.subql) / wall(pick(r)))
      .map((x) => `${x.toFixed(1)}×`)
      .join(' / ');
  console.log(`  idx-node on PostgreSQL: ${ratios((r) => r.idx)} SubQuery's events/s, round by round`);
  console.log(`  idx-node on PGlite:     ${ratios((r) => r.pglite)} SubQuery's events/s, round by round`);
}

export default bench;

import { execSync } from 'node:child_process';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Erc20Workload } from '../devchain/make-erc20-workload.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { benchCacheDir } from './cached-workload.ts';
import type { IndexingRun } from './index-once.ts';
import { graphqlPost, percentile, sequentialTimes, startIdxQuery } from './query-p50.ts';
import { teardowns } from './teardowns.ts';
import { tenthRates } from './tenths.ts';
import { writeFloor, type ReplayLayout, type WriteFloor } from './write-floor.ts';

/** sequential requests per query for its p50 (BENCH_GROWTH_REQUESTS) */
const REQUESTS = Number(process.env.BENCH_GROWTH_REQUESTS ?? 200);
/** the size the others are compared with: W1 */
const BASE_BLOCKS = 2000;

/** What one size of the workload gave on PostgreSQL, kept in the bench cache to compare sizes run apart. */
export interface SizeFigures {
  blocks: number;
  when: string;
  commit: string;
  eventsPerSecond: number;
  firstTenth?: number;
  lastTenth?: number;
  peakRssMiB: number;
  /** PostgreSQL alone over the same writes (write-floor.ts): the pace under the node's */
  floorPace?: number;
  /** sequential p50s in ms */
  queries: Record<QueryName, number>;
}

type QueryName = 'page of 100' | 'by id' | 'past height';

/**
 * The cost-as-the-work-grows figures of one PostgreSQL run: events/s over the first and the
 * last tenth of the blocks, and idx-query's p50 of a page of 100, a by-id and a past-height query on
 * what was indexed, and the floor under the pace: PostgreSQL alone replaying the run's writes
 * (write-floor.ts). Kept in the bench cache by size; any size other than W1 is compared with the W1
 * figures kept there (run `npm run bench -- node` once without BENCH_NODE_BLOCKS for them).
 */
export async function growthFigures(
  run: IndexingRun,
  env: Record<string, string | undefined>,
  schema: string,
  w: Erc20Workload,
  events: number,
): Promise<void> {
  const tenths = tenthRates(run.progress, w.startBlock, w.toBlock, events);
  if (tenths !== undefined)
    console.log(
      `  pace: first tenth ${tenths.first.toFixed(0)} events/s, last tenth ${tenths.last.toFixed(0)} events/s = ${(tenths.ratio * 100).toFixed(0)} % of the first; ` +
        `last block committed ${tenths.drainSeconds.toFixed(1)} s after it began`,
    );
  const queries = await queryP50s(env, schema, w);
  console.log(`  idx-query sequential p50 (${REQUESTS} requests each): ${describeQueries(queries)}`);
  const floor = await floorOf(env, schema, w, 'as-written');
  console.log(`  PostgreSQL alone, the same writes replayed in batches of ${floor.batchBlocks} blocks: ${describeFloor(floor)} (the floor under the node's)`);
  // the layout that indexes a version by its id once at a time, beside it (docs/decisions/data-and-storage.md)
  const closedOnly = await floorOf(env, schema, w, 'closed-versions');
  console.log(`  the same with the (id, lower) version index on ended versions only: ${describeFloor(closedOnly)}`);
  const figures: SizeFigures = {
    blocks: w.toBlock - w.fromBlock + 1,
    when: new Date().toISOString(),
    commit: currentCommit(),
    eventsPerSecond: run.eventsPerSecond,
    firstTenth: tenths?.first,
    lastTenth: tenths?.last,
    peakRssMiB: run.peakRssMiB,
    floorPace: floor.pace,
    queries,
  };
  const kept = await keptFigures();
  kept[String(figures.blocks)] = figures;
  await writeFile(figuresFile(), JSON.stringify(kept, null, 2));
  const base = kept[String(BASE_BLOCKS)];
  if (figures.blocks !== BASE_BLOCKS && base !== undefined) printRatios(figures, base);
  else if (figures.blocks !== BASE_BLOCKS) console.log(`  no W1 figures in ${figuresFile()} to compare with: run the bench once without BENCH_NODE_BLOCKS`);
}

function printRatios(now: SizeFigures, base: SizeFigures): void {
  const times = now.blocks / base.blocks;
  console.log(`  W${times} / W1 (W1 from ${base.when}, commit ${base.commit}):`);
  console.log(`    peak RSS ${now.peakRssMiB.toFixed(0)} / ${base.peakRssMiB.toFixed(0)} MiB = ${(now.peakRssMiB / base.peakRssMiB).toFixed(2)}×`);
  console.log(
    `    events/s ${now.eventsPerSecond.toFixed(0)} / ${base.eventsPerSecond.toFixed(0)} = ${(now.eventsPerSecond / base.eventsPerSecond).toFixed(2)}×`,
  );
  for (const name of Object.keys(now.queries) as QueryName[])
    console.log(
      `    ${name} p50 ${now.queries[name].toFixed(2)} / ${base.queries[name].toFixed(2)} ms = ${(now.queries[name] / base.queries[name]).toFixed(2)}×`,
    );
}

const describeQueries = (q: Record<QueryName, number>) =>
  Object.entries(q)
    .map(([name, ms]) => `${name} ${ms.toFixed(2)} ms`)
    .join(', ');

/** The three queries of the issue on the starter's entities, with ids and heights picked from what was indexed. */
async function queryP50s(env: Record<string, string | undefined>, schema: string, w: Erc20Workload): Promise<Record<QueryName, number>> {
  const td = teardowns();
  try {
    const db = await createDb({ env });
    td.teardown(() => db.close());
    const s = quoteIdent(schema);
    // vacuumed as query.bench.ts does: the figures should not depend on when autovacuum last ran
    await execute(db.kysely, `vacuum analyze ${s}.transfers`);
    await execute(db.kysely, `vacuum analyze ${s}.accounts`);
    const [pick] = await execute<{ account: string }>(
      db.kysely,
      `select id as account from ${s}.accounts where upper_inf(__block_range) order by id offset 7 limit 1`,
    );
    const url = await startIdxQuery(td, schema, env);
    const mid = Math.floor((w.fromBlock + w.toBlock) / 2);
    const queries: Record<QueryName, string> = {
      'page of 100': '{ transfers(first: 100, orderBy: BLOCK_HEIGHT_ASC) { nodes { id blockHeight fromId toId value timestamp } } }',
      'by id': `{ account(id: "${pick!.account}") { id balance } }`,
      'past height': `{ transfers(first: 100, orderBy: BLOCK_HEIGHT_DESC, blockHeight: "${mid}") { nodes { id blockHeight from { id balance } } } }`,
    };
    const p50s = {} as Record<QueryName, number>;
    for (const [name, query] of Object.entries(queries) as [QueryName, string][])
      p50s[name] = percentile(await sequentialTimes(graphqlPost(url, query), REQUESTS), 0.5);
    return p50s;
  } finally {
    await td.run();
  }
}

const describeFloor = (f: WriteFloor) =>
  `${f.totalSeconds.toFixed(1)} s, first tenth ${f.firstTenthSeconds.toFixed(2)} s, last tenth ${f.lastTenthSeconds.toFixed(2)} s = pace ${(f.pace * 100).toFixed(0)} %`;

/** The database's own pace over the run's writes (write-floor.ts), on the schema the run wrote, with the scratch tables' indexes of `layout`. */
async function floorOf(env: Record<string, string | undefined>, schema: string, w: Erc20Workload, layout: ReplayLayout): Promise<WriteFloor> {
  const db = await createDb({ env });
  try {
    return await writeFloor(db.kysely, schema, w.startBlock, w.toBlock, 100, layout);
  } finally {
    await db.close();
  }
}

const figuresFile = () => join(benchCacheDir(), 'node-bench-figures.json');

async function keptFigures(): Promise<Record<string, SizeFigures>> {
  try {
    return JSON.parse(await readFile(figuresFile(), 'utf8')) as Record<string, SizeFigures>;
  } catch {
    return {};
  }
}

function currentCommit(): string {
  try {
    return execSync('git rev-parse --short HEAD', { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch {
    return 'unknown';
  }
}

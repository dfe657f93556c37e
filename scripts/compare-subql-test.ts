import { spawn } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { parse, stringify } from 'yaml';
import { subqlNodeBin, subqlNodeEthereumBin, SUBQL_NODE_ETHEREUM_VERSION, SUBQL_NODE_VERSION } from '../bench/subql-node.ts';
import { teardowns, type Teardowns } from '../bench/teardowns.ts';
import { buildProject } from '../apps/cli/build-project.ts';
import { codegen } from '../apps/cli/codegen.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { startSubstrateChain, type SubstrateDevChain } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { BIN, REPO } from '../test/support/idx-programs.ts';
import { SUBSTRATE_FIXTURES } from '../test/support/substrate-fixtures.ts';
import { prepareFixture, SUBSTRATE_PROJECTS } from '../test/support/substrate-projects.ts';
import { keepRecording, RECORDED_STARTERS } from '../test/support/starter-recordings.ts';

/**
 * Runs the mapping tests of public SubQuery starters (their own src/test files, unchanged) on idx
 * (`idx build`, then `idx-node test`) and on SubQuery's own node (`subql-node test`, @subql/node
 * 6.4.6; `subql-node-ethereum test`, @subql/node-ethereum 6.5.0), on the same blocks of a local
 * chain, and prints a table: starter | idx | SubQuery | same pass/fail?
 *
 *   DB_HOST=127.0.0.1 DB_USER=postgres npm run test:subql-compare [-- starter…]
 *   DB_HOST=127.0.0.1 DB_USER=postgres npm run test:subql-compare -- --record-fixtures [starter…]
 *
 * `--record-fixtures` runs only the starters test/substrate-starter-tests.test.ts replays
 * (RECORDED_STARTERS, or those named), idx with `--record`, and keeps each recording as
 * test/fixtures/substrate-starter-recordings/<starter>.json; the table then gives SubQuery's results
 * that test's EXPECTED table must hold.
 *
 * SubQuery's nodes are installed on first use into cache folders outside the repository, as the
 * benchmarks install @subql/node (bench/subql-node.ts; SUBQL_NODE_DIR, SUBQL_NODE_ETHEREUM_DIR). Both
 * nodes load the test bundles `idx build` makes. The Substrate starters (test/fixtures/substrate-projects,
 * those with src/test) run on one chopsticks chain of TEST_HEIGHT + 1 blocks, their manifests pointed
 * at it as prepareFixture does; the EVM starters (test/fixtures/evm-starters) on anvil. One chain and one
 * node run at a time. Each run's output is kept in a folder the script names at the end. Exits 1 when
 * a starter's pass/fail differs and the difference is not one docs/testing.md describes (KNOWN), or
 * (`--record-fixtures`) when a recording could not be kept.
 */

/** the block the starters' tests name */
const TEST_HEIGHT = 191;
const EVM_STARTERS = join(REPO, 'test', 'fixtures', 'evm-starters');
const EVM_STARTER_NAMES = ['ethereum-starter'];
const RUN_TIMEOUT_MS = 300_000;

/** Differences docs/testing.md describes ("Beside SubQuery's node"), by starter. */
const KNOWN: Record<string, string> = {
  'ethereum-starter': 'its test file declares no test (the template is commented out): SubQuery’s node stops with a TypeError',
};

interface Run {
  code: number;
  seconds: number;
  total?: number;
  passing?: number;
  failing?: number;
  /** why a test or the run failed, as the output says it */
  reason?: string;
}

interface Row {
  starter: string;
  /** the starter's built copy */
  dir?: string;
  /** `--record-fixtures`: where its recording was kept, or why it was not */
  recorded?: string;
  idx?: Run;
  subql?: Run;
  /** a build or set-up failure instead of runs */
  error?: string;
}

const RECORD_FLAG = '--record-fixtures';
const recordFixtures = process.argv.includes(RECORD_FLAG);
const names = process.argv.slice(2).filter((a) => a !== RECORD_FLAG);
const known: readonly string[] = recordFixtures ? RECORDED_STARTERS : [...SUBSTRATE_FIXTURES.map((f) => f.name), ...EVM_STARTER_NAMES];
if (names.some((n) => !known.includes(n))) throw new Error(`unknown starter among ${names.join(', ')}; known: ${known.join(', ')}`);
if (!process.env.DB_HOST) throw new Error('set DB_HOST (and DB_USER, DB_PASS…): SubQuery’s node needs PostgreSQL; both nodes use it');
const chosen = (name: string) => (names.length === 0 ? known.includes(name) : names.includes(name));
const substrateStarters = SUBSTRATE_FIXTURES.filter(
  (f) => f.cannot === undefined && existsSync(join(SUBSTRATE_PROJECTS, f.name, 'src', 'test')) && chosen(f.name),
);
const evmStarters = EVM_STARTER_NAMES.filter(chosen);

const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
const env = { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', DB_HOST, DB_PORT, DB_USER, DB_PASS: DB_PASS ?? 'postgres', DB_DATABASE };
const logs = await mkdtemp(join(tmpdir(), 'idx-subql-compare-'));
const rows: Row[] = [];
const td = teardowns();
try {
  const subqlNode = await subqlNodeBin();
  const subqlNodeEthereum = evmStarters.length === 0 ? '' : await subqlNodeEthereumBin();
  if (substrateStarters.length > 0) {
    const chain = await timed(`chopsticks chain to block ${TEST_HEIGHT + 1}`, testChain);
    try {
      for (const fixture of substrateStarters) {
        rows.push(await compare(fixture.name, subqlNode, 'idx-node', async () => (await prepareFixture(td, fixture, chain.wsUrl)).manifest));
        if (recordFixtures) await keepFixture(rows.at(-1)!);
      }
    } finally {
      await chain.close();
    }
  }
  if (evmStarters.length > 0) {
    const anvil = await startAnvil();
    td.teardown(() => anvil.stop());
    for (const name of evmStarters) {
      rows.push(await compare(name, subqlNodeEthereum, 'idx-node-ethereum', () => prepareEvmStarter(td, name, anvil.url, '31337')));
    }
  }
} finally {
  await td.run();
}
const failures = printTable(rows) + (recordFixtures ? printRecorded(rows) : 0);
console.log(`\nidx: idx build && idx-node test; SubQuery: @subql/node ${SUBQL_NODE_VERSION} / @subql/node-ethereum ${SUBQL_NODE_ETHEREUM_VERSION} test`);
console.log(`each run's output: ${logs}`);
process.exit(failures > 0 ? 1 : 0);

/**
 * chopsticks with TEST_HEIGHT + 1 blocks: empty ones, then a transfer in each of the three blocks up to
 * TEST_HEIGHT, so that the tested block holds a signed balances.Transfer and, before it, the collator's
 * reward (a Transfer from the fee pot in the block's initialization, with no extrinsic).
 */
async function testChain(): Promise<SubstrateDevChain> {
  const chain = await startSubstrateChain();
  try {
    const w = await createSubstrateWorkload(chain);
    try {
      await buildTestBlocks(chain, w);
    } finally {
      await w.close();
    }
    return chain;
  } catch (err) {
    await chain.close();
    throw err;
  }
}

async function buildTestBlocks(chain: SubstrateDevChain, w: Awaited<ReturnType<typeof createSubstrateWorkload>>): Promise<void> {
  await chain.newBlocks(TEST_HEIGHT - 3 - (await chain.height()));
  const UNIT = 10n ** 12n;
  for (const [from, to] of [
    ['alice', w.accounts.bob],
    ['alice', w.accounts.charlie],
    ['bob', w.accounts.charlie],
  ] as const) {
    await w.transfer(from, to, UNIT);
    await w.block();
  }
  await w.block();
}

/** A copy of an EVM starter built by idx (`idx codegen && idx build`), its manifest pointed at `endpoint` from block 1. */
async function prepareEvmStarter(t: Teardowns, name: string, endpoint: string, chainId: string): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-subql-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const dir = join(parent, name);
  await cp(join(EVM_STARTERS, name), dir, { recursive: true });
  await symlink(join(REPO, 'node_modules'), join(dir, 'node_modules'), 'dir');
  const reporter = { info: () => {}, warn: () => {} };
  await codegen({ location: dir, reporter });
  const built = await buildProject({ location: dir, reporter });
  const manifest = parse(await readFile(built.manifest ?? join(dir, 'project.yaml'), 'utf8')) as {
    network: Record<string, unknown>;
    dataSources: { startBlock?: number }[];
  };
  manifest.network = { chainId, endpoint };
  for (const ds of manifest.dataSources) ds.startBlock = 1;
  const local = join(dir, 'project-local.yaml');
  await writeFile(local, stringify(manifest));
  return local;
}

/** Builds a starter's copy, then runs idx's and SubQuery's test command on it, one after the other. */
async function compare(starter: string, subqlBin: string, idxProgram: string, prepare: () => Promise<string>): Promise<Row> {
  let manifest: string;
  try {
    manifest = await timed(`${starter}: idx codegen && idx build`, prepare);
  } catch (err) {
    return { starter, error: `idx build fails: ${(err as Error).message.split('\n')[0]}` };
  }
  const record = recordFixtures ? ['--record'] : [];
  const idx = await timed(`${starter}: ${idxProgram} test${recordFixtures ? ' --record' : ''}`, () =>
    runTest(`${starter}.idx`, dirname(manifest), [process.execPath, '--no-node-snapshot', BIN(idxProgram), 'test', '-f', manifest, ...record]),
  );
  const subql = await timed(`${starter}: SubQuery test`, () =>
    runTest(`${starter}.subql`, dirname(manifest), [process.execPath, subqlBin, 'test', '-f', manifest]),
  );
  return { starter, dir: dirname(manifest), idx, subql };
}

/** `--record-fixtures`: the recording idx's run made in the starter's copy, kept as its fixture. */
async function keepFixture(row: Row): Promise<void> {
  if (row.dir === undefined) return;
  try {
    row.recorded = await keepRecording(row.starter, row.dir);
  } catch (err) {
    row.recorded = `not recorded: ${(err as Error).message}`;
  }
}

/** `--record-fixtures`: each recording kept, its size, and SubQuery's result as EXPECTED holds it; the number not recorded. */
function printRecorded(rows: readonly Row[]): number {
  console.log('\nrecorded (test/substrate-starter-tests.test.ts replays them; its EXPECTED table must hold SubQuery’s results):');
  for (const row of rows) {
    const size = row.recorded !== undefined && existsSync(row.recorded) ? ` (${Math.round(statSync(row.recorded).size / 1024)} KB)` : '';
    const subql = row.subql === undefined ? 'not run' : cell(row.subql);
    const where = row.recorded?.startsWith(REPO) ? relative(REPO, row.recorded) : row.recorded;
    console.log(`- ${row.starter}: ${where ?? 'not recorded'}${size}; SubQuery: ${subql}`);
  }
  return rows.filter((row) => row.recorded === undefined || !existsSync(row.recorded)).length;
}

/**
 * Runs one test command to its end; its output, kept in the logs folder, read for the totals and the
 * first reason of failure (paths in the project's copy `dir` made relative).
 */
async function runTest(label: string, dir: string, [command, ...args]: string[]): Promise<Run> {
  const started = performance.now();
  const child = spawn(command!, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => (output += s));
  child.stderr.setEncoding('utf8').on('data', (s: string) => (output += s));
  const timer = setTimeout(() => child.kill('SIGKILL'), RUN_TIMEOUT_MS);
  const code = await new Promise<number>((resolve) => child.on('exit', (c) => resolve(c ?? 1)));
  clearTimeout(timer);
  const text = output.replace(/\x1b\[[0-9;]*m/g, '');
  await mkdir(logs, { recursive: true });
  await writeFile(join(logs, `${label}.log`), text);
  const count = (what: string) => {
    const m = new RegExp(`${what} tests: (\\d+)`).exec(text);
    return m === null ? undefined : Number(m[1]);
  };
  const reason = /failed to run:? (.+)/.exec(text)?.[1] ?? /^Cause: (.+)/m.exec(text)?.[1] ?? / ERROR (.+)/.exec(text)?.[1];
  return {
    code,
    seconds: (performance.now() - started) / 1000,
    ...(count('Total') !== undefined && { total: count('Total'), passing: count('Passing'), failing: count('Failing') }),
    ...(reason !== undefined && { reason: reason.split(`${dir}/`).join('').trim().slice(0, 110) }),
  };
}

async function timed<T>(what: string, fn: () => Promise<T>): Promise<T> {
  const started = performance.now();
  const out = await fn();
  console.log(`${what}: ${((performance.now() - started) / 1000).toFixed(1)} s`);
  return out;
}

function cell(r: Run): string {
  return (
    `${r.code === 0 ? 'pass' : 'fail'} (exit ${r.code}, ${r.seconds.toFixed(1)} s)` +
    (r.total === undefined ? '; no totals' : `; ${r.passing}/${r.total} passing`) +
    (r.reason === undefined ? '' : `: ${r.reason.replace(/\|/g, '\\|')}`)
  );
}

/** The table, as Markdown; the number of starters whose pass/fail differs for no reason KNOWN gives. */
function printTable(rows: readonly Row[]): number {
  let differing = 0;
  console.log('\n| starter | idx result | SubQuery result | same? |\n|---|---|---|---|');
  for (const row of rows) {
    if (row.idx === undefined || row.subql === undefined) {
      differing++;
      console.log(`| ${row.starter} | ${row.error} | not run | — |`);
      continue;
    }
    const same = (row.idx.code === 0) === (row.subql.code === 0);
    if (!same && KNOWN[row.starter] === undefined) differing++;
    const verdict = same ? 'yes' : KNOWN[row.starter] === undefined ? '**no**' : `no, known: ${KNOWN[row.starter]}`;
    console.log(`| ${row.starter} | ${cell(row.idx)} | ${cell(row.subql)} | ${verdict} |`);
  }
  return differing;
}

import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { toEventSelector } from 'viem/utils';
import { reindex } from '../apps/node/start-up/history-commands.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import type { Db } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { balanceOf } from './support/erc20-balance.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { runNodeCli } from './support/watched-node.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

// The flags that change what is stored, on the richer backend this run has.
const kind = BACKENDS[BACKENDS.length - 1]!;
const env = envFor(kind);
const { anvil, client, workload, built } = await setupErc20Chain(t, 20);
const logger = createLogger({ level: 'silent', format: 'json' });
const dir = await copyProject(t, built);
const schemas: string[] = [];
t.teardown(async () => {
  const db = await openDb(kind, dir);
  for (const s of schemas) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
  await db.close();
});

/** Runs the node to `stopAt` (default the workload's end) into `schema`. PGlite allows one open per folder, so reads open after. */
async function index(schema: string, args: string[], stopAt = workload.toBlock): Promise<void> {
  if (!schemas.includes(schema)) schemas.push(schema);
  await runNode({
    options: nodeOptions(dir, anvil.url, ['--db-schema', schema, ...args]),
    logger,
    version: 'test',
    env,
    signal: new AbortController().signal,
    settings: { stopAtHeight: stopAt },
  });
}

/** Opens the database for reading during one subtest. */
async function reader(tt: { teardown(fn: () => unknown): void }): Promise<Db> {
  const db = await openDb(kind, dir);
  tt.teardown(() => db.close());
  return db;
}

const columns = async (read: Db, schema: string, table: string) =>
  (
    await execute<{ column_name: string }>(
      read.kysely,
      `select column_name from information_schema.columns where table_schema = $1 and table_name = $2 order by column_name`,
      [schema, table],
    )
  ).map((r) => r.column_name);

t.test('--disable-historical keeps one row per entity, no __block_range, and the same balances', async (t) => {
  const schema = uniqueSchemaName('idx_flags');
  await index(schema, ['--disable-historical']);
  const read = await reader(t);
  t.notOk((await columns(read, schema, 'accounts')).includes('__block_range'));
  const accounts = await execute<{ id: string; balance: string }>(read.kysely, `select id, balance::text from ${quoteIdent(schema)}.accounts`);
  const logs = await client.request<{ topics: string[] }[]>('eth_getLogs', [
    {
      fromBlock: '0x0',
      toBlock: `0x${workload.toBlock.toString(16)}`,
      address: workload.token,
      topics: [toEventSelector('Transfer(address,address,uint256)')],
    },
  ]);
  const parties = new Set(logs.flatMap((l) => [l.topics[1], l.topics[2]]));
  t.equal(accounts.length, parties.size, 'one row per account that sent or received, not one per version');
  const sample = accounts.filter((a) => a.id !== '0x0000000000000000000000000000000000000000').slice(0, 10);
  for (const a of sample) t.equal(a.balance, String(await balanceOf(client, workload.token, a.id, workload.toBlock)), `balance of ${a.id}`);
});

t.test('--timestamp-field=false: starter_entities has id, block_height and the block range only', async (t) => {
  const schema = uniqueSchemaName('idx_flags');
  await index(schema, ['--timestamp-field=false']);
  t.same(await columns(await reader(t), schema, 'starter_entities'), ['__block_range', 'block_height', 'id']);
});

t.test('--proof-of-index: two independent runs write identical _poi rows', async (t) => {
  const [a, b] = [uniqueSchemaName('idx_flags'), uniqueSchemaName('idx_flags')];
  await index(a, ['--proof-of-index']);
  await index(b, ['--proof-of-index']);
  const read = await reader(t);
  const poi = (schema: string) =>
    execute<{ id: string; h: string; p: string | null }>(
      read.kysely,
      `select id, encode(chain_block_hash, 'hex') c, encode(hash, 'hex') h, encode(parent_hash, 'hex') p, encode(operation_hash_root, 'hex') r from ${quoteIdent(schema)}._poi order by id`,
    );
  const rowsA = await poi(a);
  const rowsB = await poi(b);
  t.ok(rowsA.length >= workload.toBlock - workload.fromBlock + 1, 'a row for every block that wrote something');
  t.same(rowsB, rowsA);
  for (let i = 1; i < rowsA.length; i++) {
    if (rowsA[i]!.p !== rowsA[i - 1]!.h) {
      t.fail(`row ${rowsA[i]!.id} does not chain to row ${rowsA[i - 1]!.id}`);
      break;
    }
  }
});

t.test('reindex to a height, then resume: the tables and the _poi chain equal an uninterrupted run', async (t) => {
  const whole = uniqueSchemaName('idx_flags');
  await index(whole, ['--proof-of-index']);
  const schema = uniqueSchemaName('idx_flags');
  await index(schema, ['--proof-of-index']);
  const target = workload.fromBlock + 7;
  await reindex({ ...nodeOptions(dir, anvil.url, ['--db-schema', schema]), idx: dir }, target, logger, env);
  {
    const read = await openDb(kind, dir);
    const [meta] = await execute<{ value: unknown }>(read.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
    t.equal(meta?.value, target, 'lastProcessedHeight moved back');
    const [above] = await execute<{ n: number }>(read.kysely, `select count(*)::int n from ${quoteIdent(schema)}.transfers where block_height > $1`, [target]);
    t.equal(above?.n, 0, 'no transfer above the target height');
    const [poiAbove] = await execute<{ n: number }>(read.kysely, `select count(*)::int n from ${quoteIdent(schema)}._poi where id > $1`, [target]);
    t.equal(poiAbove?.n, 0, 'no _poi row above the target height');
    await read.close();
  }
  await index(schema, ['--proof-of-index']);
  const read = await reader(t);
  t.same(await erc20Tables(read, schema), await erc20Tables(read, whole), 'every version row equals the uninterrupted run');
  const poi = (s: string) => execute(read.kysely, `select id, encode(hash, 'hex') h, encode(parent_hash, 'hex') p from ${quoteIdent(s)}._poi order by id`);
  t.same(await poi(schema), await poi(whole), 'the _poi chain continues where the rewind left it');
});

t.test(
  'the manifest: network.bypassBlocks (heights, "from-to" ranges) run no handler; runner.node.options.historical: false as --disable-historical',
  async (t) => {
    const bypassDir = await copyProject(t, built);
    const manifest = join(bypassDir, 'project.ts');
    const [single, from, to] = [workload.fromBlock + 2, workload.fromBlock + 5, workload.fromBlock + 6];
    const source = await readFile(manifest, 'utf8');
    const patched = source
      .replace('chainId: "31337",', `chainId: "31337",\n    bypassBlocks: [${single}, "${from}-${to}"],`)
      .replace('version: ">=3.0.0" }', 'version: ">=3.0.0", options: { historical: false } }');
    t.equal(patched.split('\n').length, source.split('\n').length + 1, 'the manifest names its chain and its node');
    t.match(patched, /options: \{ historical: false \}/);
    await writeFile(manifest, patched);
    const schema = uniqueSchemaName('idx_bypass');
    await runNode({
      options: nodeOptions(bypassDir, anvil.url, ['--db-schema', schema]),
      logger,
      version: 'test',
      env,
      signal: new AbortController().signal,
      settings: { stopAtHeight: workload.toBlock },
    });
    const db = await openDb(kind, bypassDir);
    t.teardown(async () => {
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      await db.close();
    });
    const heights = await execute<{ h: number; n: number }>(
      db.kysely,
      `select block_height::int as h, count(*)::int as n from ${quoteIdent(schema)}.transfers group by 1 order by 1`,
    );
    const indexed = new Set(heights.map((r) => r.h));
    t.same(
      [single, from, to].filter((h) => indexed.has(h)),
      [],
      'no transfer of a bypassed block',
    );
    const expected = [];
    for (let h = workload.fromBlock; h <= workload.toBlock; h++) if (h !== single && (h < from || h > to)) expected.push(h);
    t.same(
      expected.filter((h) => !indexed.has(h)),
      [],
      'every other block of the workload has its transfers',
    );
    const [meta] = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
    t.equal(meta?.value, workload.toBlock, 'the node went on past them');
    t.notOk((await columns(db, schema, 'accounts')).includes('__block_range'), 'historical: false: no block ranges, as --disable-historical');
  },
);

t.test('--output-fmt=json prints one JSON object per line with the documented fields', async (t) => {
  const r = await runNodeCli(dir, env, ['--network-endpoint', 'http://127.0.0.1:1', '--output-fmt=json', '--db-schema', 'unused']);
  t.equal(r.code, 1);
  const lines = r.output
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
  t.ok(lines.length >= 2);
  for (const l of lines) t.match(l, { level: String, timestamp: String, pid: Number, hostname: String, category: String, message: String });
  t.ok(lines.some((l) => l.level === 'error' && String(l.message).includes('cannot reach the chain')));
});

import t, { type Test } from 'tap';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { startDictionaryServer } from './support/dictionary-server.ts';
import { envFor, openDb, PROGRAM_BACKEND } from './support/node-backends.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { startLocalServer, startRpcProxy } from './support/local-rpc-server.ts';

exitWhenDone();

// The workload, then a long stretch of empty blocks: what a dictionary lets the node skip.
const { anvil, client, workload, built } = await setupErc20Chain(t, 15);
await client.request('anvil_mine', ['0xc8']);
const head = Number(await client.request<string>('eth_blockNumber'));
const stopAt = head - 70;

/** One run of the starter project to `stopAt` through a proxy that counts the chain calls. */
async function index(t: Test, args: string[]) {
  const proxy = await startRpcProxy(t, anvil.url);
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_dict');
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'colored', colors: false, write: (s) => void lines.push(s) });
  await runNode({
    options: nodeOptions(dir, proxy.url, ['--db-schema', schema, '--batch-size', '20', ...args]),
    logger,
    version: 'test',
    env: envFor(PROGRAM_BACKEND),
    signal: new AbortController().signal,
    settings: { stopAtHeight: stopAt },
  });
  // Dictionaries are about the program, not SQL: one database (PostgreSQL when set, it opens faster).
  const db = await openDb(PROGRAM_BACKEND, dir);
  t.teardown(async () => {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  });
  const tables = await erc20Tables(db, schema);
  const [meta] = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
  const calls = proxy.bodies.flatMap((b) => (Array.isArray(b) ? b : [b]) as { method: string }[]);
  return { tables, lastProcessed: meta?.value, getLogs: calls.filter((c) => c.method === 'eth_getLogs').length, log: lines.join('') };
}

const plain = await index(t, []);
t.equal(plain.lastProcessed, stopAt);
t.ok(plain.tables.transfers.length > 15 * 20, 'the workload was indexed');
const ranges = Math.ceil((stopAt - workload.startBlock + 1) / 20);

t.test('with --network-dictionary, empty ranges cost no eth_getLogs and the tables are the same', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: head });
  const run = await index(t, ['--network-dictionary', dictionary.url]);
  t.same(run.tables, plain.tables, 'every version row equals the run without a dictionary');
  t.match(run.log, /using dictionary http:\/\/127\.0\.0\.1:\d+, indexed to block \d+/);
  t.ok(dictionary.rangeQueries() >= ranges - 1, `the dictionary was asked for the ranges (${dictionary.rangeQueries()})`);
  t.ok(run.getLogs < plain.getLogs / 2, `eth_getLogs only where the dictionary knows of Transfers: ${run.getLogs} calls instead of ${plain.getLogs}`);
});

t.test('a dictionary without `distinct` still works', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: head, distinct: false });
  const run = await index(t, ['-d', dictionary.url]);
  t.same(run.tables, plain.tables);
  t.ok(run.getLogs < plain.getLogs, `fewer eth_getLogs calls (${run.getLogs} < ${plain.getLogs})`);
});

t.test('a dictionary behind the chain answers up to its height; the rest comes from the chain', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: workload.startBlock + 60 });
  const run = await index(t, ['--network-dictionary', dictionary.url]);
  t.same(run.tables, plain.tables);
  t.ok(run.getLogs < plain.getLogs, `fewer eth_getLogs calls (${run.getLogs} < ${plain.getLogs})`);
});

t.test('a dictionary of another chain is not used, and says so', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: head, genesisHash: `0x${'ab'.repeat(32)}` });
  const run = await index(t, ['--network-dictionary', dictionary.url]);
  t.same(run.tables, plain.tables);
  t.match(run.log, /dictionary http:\/\/127\.0\.0\.1:\d+ serves another chain \(genesis 0xabab/);
  t.equal(dictionary.rangeQueries(), 0);
  t.equal(run.getLogs, plain.getLogs);
});

t.test('a dictionary slower than --dictionary-timeout is skipped with a warning naming the flag', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: head, delayMs: 1500 });
  const run = await index(t, ['--network-dictionary', dictionary.url, '--dictionary-timeout', '1']);
  t.same(run.tables, plain.tables);
  t.match(run.log, /did not answer within 1 s; raise --dictionary-timeout/);
});

t.test('--dictionary-resolver finds the dictionary for the chain and overrides --network-dictionary', async (t) => {
  const dictionary = await startDictionaryServer(t, client, { height: head });
  const resolver = await startLocalServer(t, () => ({ json: [dictionary.url] }));
  const unused = await startDictionaryServer(t, client, { height: head });
  const run = await index(t, ['--dictionary-resolver', resolver.url, '--network-dictionary', unused.url]);
  t.same(run.tables, plain.tables);
  t.equal(resolver.bodies.length, 1, 'the resolver was asked once');
  t.ok(dictionary.rangeQueries() > 0, 'the resolved dictionary was used');
  t.equal(unused.bodies.length, 0, '--network-dictionary was overridden');
});

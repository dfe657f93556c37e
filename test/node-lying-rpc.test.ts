import t, { type Test } from 'tap';
import { IdxError } from '../domain/errors.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { openDb, PROGRAM_BACKEND } from './support/node-backends.ts';
import { indexInProcess } from './support/index-in-process.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { copyProject } from './support/project-copies.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { startRpcProxy, type JsonRpcRequest } from './support/local-rpc-server.ts';

exitWhenDone();

// An endpoint that lies about logs (the "broken RPC provider"): the node must index the
// right data anyway, or stop naming the endpoint and block; never index a lie silently.
const { anvil, workload, built } = await setupErc20Chain(t, 10);
const stopAt = workload.toBlock;

interface WireLog {
  blockNumber: string;
  topics: string[];
  data: string;
}
type Lie = (logs: WireLog[]) => WireLog[];

/** the 4th log's recipient topic changed to an account that is nowhere on the chain */
const redirect: Lie = (logs) => logs.map((l, i) => (i === 3 ? { ...l, topics: [l.topics[0]!, l.topics[1]!, `0x${'0'.repeat(24)}${'de'.repeat(20)}`] } : l));
/** the 4th log's amount changed: address and topics, all the bloom covers, stay */
const inflate: Lie = (logs) => logs.map((l, i) => (i === 3 ? { ...l, data: `0x${'f'.repeat(64)}` } : l));
/** every log of the block of the 4th one dropped */
const dropBlock: Lie = (logs) => logs.filter((l) => l.blockNumber !== logs[3]?.blockNumber);
const nothing: Lie = () => [];

/** A proxy to anvil whose eth_getLogs answers holding at least 4 logs are lies when `when(n)` says so for the n-th of them. */
async function liar(t: Test, lie: Lie, when: (n: number) => boolean) {
  let n = 0;
  let lies = 0;
  const proxy = await startRpcProxy(
    t,
    anvil.url,
    () => undefined,
    (call: JsonRpcRequest, result) => {
      if (call.method !== 'eth_getLogs' || !Array.isArray(result) || result.length < 4) return result;
      if (!when(n++)) return result;
      lies++;
      return lie(result as WireLog[]);
    },
  );
  return { url: proxy.url, lies: () => lies };
}

async function index(t: Test, endpoints: string[], args: string[] = []) {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_lying');
  const lines: string[] = [];
  const [first, ...more] = endpoints;
  let error: unknown;
  await indexInProcess(
    PROGRAM_BACKEND,
    dir,
    first!,
    ['--db-schema', schema, '--batch-size', '4', ...more.flatMap((e) => ['--network-endpoint', e]), ...args],
    stopAt,
    (s) => void lines.push(s),
  ).catch((err: unknown) => (error = err));
  const db = await openDb(PROGRAM_BACKEND, dir);
  t.teardown(async () => {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  });
  return { tables: error === undefined ? await erc20Tables(db, schema) : undefined, error, log: lines.join('') };
}

const truth = await index(t, [anvil.url]);
t.equal(truth.error, undefined);
t.ok(truth.tables!.transfers.length >= 10 * 20, 'the honest run indexed the workload');

t.test("a log whose topics are not in its block's bloom is refused and fetched again", async (t) => {
  const proxy = await liar(t, redirect, (n) => n % 2 === 0);
  const run = await index(t, [proxy.url]);
  t.equal(run.error, undefined);
  t.ok(proxy.lies() >= 2, `the proxy lied ${proxy.lies()} times`);
  t.same(run.tables, truth.tables, 'every row equals the honest run');
  t.match(run.log, /block \d+: log \d+ \(address 0x[0-9a-f]{40}\) is not in the block's logsBloom \(logs from http:\/\/127\.0\.0\.1:\d+/);
});

t.test('a lie that persists stops the node with an error naming the endpoint and the block', async (t) => {
  const proxy = await liar(t, redirect, () => true);
  const run = await index(t, [proxy.url]);
  t.ok(run.error instanceof IdxError, String(run.error));
  t.equal((run.error as IdxError).code, 'RPC_ANSWER_CONTRADICTS_HEADER');
  t.match(
    (run.error as Error).message,
    new RegExp(`^block \\d+: .*logsBloom \\(logs from ${proxy.url.replace(/[.]/g, '\\.')}, header from ${proxy.url.replace(/[.]/g, '\\.')}\\)`),
  );
});

t.test('with an honest endpoint beside the liar, the node asks the honest one again', async (t) => {
  const proxy = await liar(t, redirect, () => true);
  const run = await index(t, [proxy.url, anvil.url]);
  t.equal(run.error, undefined);
  t.ok(proxy.lies() >= 1, `the proxy lied ${proxy.lies()} times`);
  t.same(run.tables, truth.tables);
});

for (const [name, lie] of [
  ['altered log data', inflate],
  ['a dropped block of logs', dropBlock],
  ['an empty answer', nothing],
] as const) {
  t.test(`--verify-receipts catches ${name}`, async (t) => {
    const proxy = await liar(t, lie, (n) => n % 2 === 0);
    const run = await index(t, [proxy.url], ['--verify-receipts']);
    t.equal(run.error, undefined, String(run.error));
    t.ok(proxy.lies() >= 2, `the proxy lied ${proxy.lies()} times`);
    t.same(run.tables, truth.tables, 'every row equals the honest run');
  });
}

t.test('--verify-receipts stops on altered data that persists, naming the endpoint and block', async (t) => {
  const proxy = await liar(t, inflate, () => true);
  const run = await index(t, [proxy.url], ['--verify-receipts']);
  t.equal((run.error as IdxError).code, 'RPC_ANSWER_CONTRADICTS_HEADER', String(run.error));
  t.match(
    (run.error as Error).message,
    new RegExp(`^block \\d+: log \\d+ differs from the block's receipts \\(logs from ${proxy.url.replace(/[.]/g, '\\.')}, `),
  );
});

t.test('--verify-receipts indexes an honest endpoint as without it', async (t) => {
  const run = await index(t, [anvil.url], ['--verify-receipts']);
  t.same(run.tables, truth.tables);
});

t.test('fetch worker threads check as the main thread does', async (t) => {
  const proxy = await liar(t, nothing, (n) => n % 2 === 0);
  const run = await index(t, [proxy.url], ['--verify-receipts', '--workers', '1']);
  t.equal(run.error, undefined, String(run.error));
  t.ok(proxy.lies() >= 2, `the proxy lied ${proxy.lies()} times`);
  t.same(run.tables, truth.tables);
});

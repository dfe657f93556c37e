import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { getAddress, toEventSelector } from 'viem/utils';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { logMessages, runIdxNodeTest } from './support/idx-node-test.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { BACKENDS, envFor, PROGRAM_BACKEND } from './support/node-backends.ts';
import type { BackendKind } from './support/test-backends.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute } from '../infra/postgres/sql.ts';

exitWhenDone();

/**
 * `idx-node test` (SubQuery's `subql-node test`): the ERC20 starter's handleTransfer tested with
 * @subql/testing's subqlTest against blocks of a real chain (anvil): a passing test, one whose
 * expected value is wrong, one whose handler throws.
 */
const { anvil, client, built } = await setupErc20Chain(t, 3);
const dir = await copyProject(t, built);
// the starter's own test (checked below, offline) is not one of these
await rm(join(dir, 'src', 'test'), { recursive: true });
await rm(join(dir, 'dist', 'test'), { recursive: true });

interface Log {
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
  address: string;
  topics: string[];
  data: string;
}
const logs = await client.request<Log[]>('eth_getLogs', [
  { fromBlock: '0x0', toBlock: 'latest', topics: [toEventSelector('Transfer(address,address,uint256)')] },
]);
const heights = [...new Set(logs.map((l) => Number(l.blockNumber)))].sort((a, b) => a - b);
// the last two blocks with transfers: one tested, one whose handler is made to throw
const [tested, throwing] = heights.slice(-2) as [number, number];
const inBlock = logs.filter((l) => Number(l.blockNumber) === tested);
const first = inBlock[0]!;
// the handler stores addresses as the log's decoded arguments give them: checksummed
const address = (topic: string) => getAddress(`0x${topic.slice(26)}`);
const from = address(first.topics[1]!);
const block = await client.request<{ timestamp: string }>('eth_getBlockByNumber', [`0x${tested.toString(16)}`, false]);
// the sender's balance after the block, from a starting balance the test stores (a dependent entity)
const START = 10n ** 30n;
let balance = START;
for (const l of inBlock) {
  if (address(l.topics[1]!) === from) balance -= BigInt(l.data);
  if (address(l.topics[2]!) === from) balance += BigInt(l.data);
}

const transfer = (value: bigint) => `Transfer.create({
    id: "${first.transactionHash}-${Number(first.logIndex)}",
    blockHeight: BigInt(${tested}),
    timestamp: new Date(${Number(block.timestamp) * 1000}),
    fromId: "${from}",
    toId: "${address(first.topics[2]!)}",
    value: BigInt("${value}"),
    transactionHash: "${first.transactionHash}",
    contractAddress: "${getAddress(first.address)}",
  })`;
const testFile = (name: string, height: number, value: bigint) => `import { subqlTest } from "@subql/testing";
import { Account, Transfer } from "../types";

subqlTest(
  "${name}",
  ${height},
  [Account.create({ id: "${from}", balance: BigInt("${START}") })],
  [${transfer(value)}, Account.create({ id: "${from}", balance: BigInt("${balance}") })],
  "handleTransfer",
);
`;
await mkdir(join(dir, 'src', 'test'), { recursive: true });
await writeFile(join(dir, 'src', 'test', 'transfer.test.ts'), testFile('handleTransfer test', tested, BigInt(first.data)));
await writeFile(join(dir, 'src', 'test', 'wrong-value.test.ts'), testFile('wrong value', tested, BigInt(first.data) + 1n));
await writeFile(join(dir, 'src', 'test', 'throws.test.ts'), testFile('handler throws', throwing, BigInt(first.data)));
// a test of the data source's other handler on that block: SubQuery's node runs every handler of the data source
await writeFile(
  join(dir, 'src', 'test', 'same-source.test.ts'),
  `import { subqlTest } from "@subql/testing";\n\nsubqlTest("handleBlock beside handleTransfer", ${throwing}, [], [], "handleBlock");\n`,
);
// the handler refuses one block, so that a test of it fails with the handler's error
const mapping = join(dir, 'src', 'mappings', 'erc20.ts');
const source = await readFile(mapping, 'utf8');
await writeFile(
  mapping,
  source.replace(
    'const { from, to, value } = log.args;',
    `if (log.blockNumber === ${throwing}) throw new Error("handleTransfer refuses block ${throwing}");\n  const { from, to, value } = log.args;`,
  ),
);
await rebuild(dir);

const idxNodeTest = (kind: BackendKind, ...args: string[]) => idxNodeTestOf(dir, anvil.url, kind, ...args);
const idxNodeTestOf = (project: string, endpoint: string, kind: BackendKind, ...args: string[]) => runIdxNodeTest(project, endpoint, envFor(kind), ...args);

t.test('idx build bundles src/test/*.test.ts into dist/test/, with @subql/testing provided', async (t) => {
  for (const name of ['transfer', 'wrong-value', 'throws', 'same-source'])
    t.ok((await readFile(join(dir, 'dist', 'test', `${name}.test.js`), 'utf8')).includes('subqlTests'));
});

for (const kind of BACKENDS) {
  t.test(`${kind}: a test whose entities match passes, exit code 0, its schema gone after`, async (t) => {
    const schema = uniqueSchemaName('idx_subqltest');
    const { code, output } = await idxNodeTest(kind, '--test-filter', 'transfer', '--db-schema', schema);
    const lines = logMessages(output);
    t.equal(code, 0, 'exit code 0', { output });
    t.ok(lines.includes('Starting test: handleTransfer test'));
    t.ok(lines.includes(`Entity check PASSED (Entity ID: ${first.transactionHash}-${Number(first.logIndex)})`));
    t.ok(lines.includes(`Entity check PASSED (Entity ID: ${from})`), 'the dependent account was stored before the handler ran');
    t.ok(lines.includes('Test: handleTransfer test completed with 2 passed and 0 failed checks'));
    t.ok(lines.includes('Total tests: 1') && lines.includes('Passing tests: 1') && lines.includes('Failing tests: 0'));
    if (kind === 'postgres') {
      const db = await createDb({ env: envFor(kind) });
      t.teardown(() => db.close());
      const left = await execute(db.kysely, `select 1 from information_schema.schemata where schema_name = 'test-${schema}'`);
      t.equal(left.length, 0, 'the test schema was dropped');
    }
  });
}

t.test('--unsafe (node:vm instead of an isolate): the same test passes', async (t) => {
  const { code, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'transfer', '--unsafe');
  t.equal(code, 0, 'exit code 0', { output });
  t.ok(logMessages(output).includes('Test: handleTransfer test completed with 2 passed and 0 failed checks'), 'both checks pass', { output });
});

t.test('a changed expected value fails, naming entity, field, expected and actual', async (t) => {
  const { code, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'wrong-value');
  const lines = logMessages(output);
  t.equal(code, 1, 'exit code 1', { output });
  const id = `${first.transactionHash}-${Number(first.logIndex)}`;
  t.ok(lines.includes(`Entity check FAILED (Entity ID: ${id})`));
  t.ok(lines.includes('Failed tests summary:'));
  t.ok(
    lines.includes(
      `\n* wrong value\n\tEntity Transfer: ${id}\n\t\tattribute: "value":\n\t\t\texpected: "${BigInt(first.data) + 1n}"\n\t\t\tactual:   "${BigInt(first.data)}"\n`,
    ),
    'the summary names test, entity, field, expected and actual',
    { output },
  );
  t.ok(lines.includes('Failing tests: 1'));
});

t.test("a handler that throws fails its test with the handler's error", async (t) => {
  const { code, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'throws');
  const lines = logMessages(output);
  t.equal(code, 1, 'exit code 1', { output });
  t.ok(
    lines.some((l) => l.startsWith('\n* handler throws\nRuntime Error:\n') && l.includes(`handleTransfer refuses block ${throwing}`)),
    "the summary gives the handler's error",
    { output },
  );
  t.ok(lines.includes('Failing tests: 1'));
});

t.test("a test of one handler runs its data source's other handlers too, as SubQuery's node does", async (t) => {
  const { code, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'same-source');
  const lines = logMessages(output);
  t.equal(code, 1, 'exit code 1', { output });
  t.ok(
    lines.some((l) => l.startsWith('\n* handleBlock beside handleTransfer\nRuntime Error:\n') && l.includes(`handleTransfer refuses block ${throwing}`)),
    'handleTransfer ran on the block of a test of handleBlock, and its error fails the test',
    { output },
  );
});

t.test('all test files together: the summary counts each', async (t) => {
  const { code, output } = await idxNodeTest(PROGRAM_BACKEND);
  const lines = logMessages(output);
  t.equal(code, 1);
  t.ok(lines.includes('Found 4 test files'), 'every test file', { output });
  t.ok(lines.includes('Total tests: 4') && lines.includes('Passing tests: 1') && lines.includes('Failing tests: 3'), 'the totals', { output });
});

/** A port nothing listens on: a replayed test that asked it would fail to reach it. */
const UNREACHABLE = 'http://127.0.0.1:9';

t.test("the starter's own test (idx init's, npm test) passes offline from its recording", async (t) => {
  const { code, output } = await idxNodeTestOf(built, UNREACHABLE, PROGRAM_BACKEND);
  const lines = logMessages(output);
  t.equal(code, 0, 'exit code 0', { output });
  t.ok(lines.includes('Replaying the chain from src/test/__recordings__/transfers.json'), { output });
  t.ok(lines.includes('Test: handleTransfer stores the transfer and moves the balances completed with 2 passed and 0 failed checks'), { output });
});

t.test('--record keeps what the tests read from the chain; later runs replay it with the endpoint unreachable', async (t) => {
  const copy = await copyProject(t, dir);
  const live = await idxNodeTestOf(copy, anvil.url, PROGRAM_BACKEND, '--test-filter', 'transfer');
  const recorded = await idxNodeTestOf(copy, anvil.url, PROGRAM_BACKEND, '--record');
  t.equal(recorded.code, 1, 'the failing tests still fail while recording', { output: recorded.output });
  t.ok(
    logMessages(recorded.output).some((l) => /^Recorded \d+ chain calls to src\/test\/__recordings__\/transfer\.json$/.test(l)),
    { output: recorded.output },
  );
  const file = await readFile(join(copy, 'src', 'test', '__recordings__', 'transfer.json'), 'utf8');
  t.match(file, /^\{"format":"idx-chain-recording","version":1,"chainId":"\d+","calls":\[\n/, 'a recording file, one call per line');
  t.match(file, /"method":"eth_getLogs"/, "the block's logs are in it");

  const replayed = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND);
  const lines = logMessages(replayed.output);
  t.equal(replayed.code, 1, { output: replayed.output });
  t.ok(lines.includes('Replaying the chain from src/test/__recordings__/transfer.json'), { output: replayed.output });
  const totals = (l: readonly string[]) => l.filter((m) => /^(Total|Passing|Failing) tests: /.test(m));
  t.same(totals(lines), totals(logMessages(recorded.output)), 'the same totals as when recorded from the chain', { output: replayed.output });
  t.ok(totals(lines).includes('Passing tests: 1'), 'one test passes', { output: replayed.output });
  t.notOk(/retrying|RPC_UNREACHABLE|no RPC endpoint/.test(replayed.output), 'the endpoint was never asked');
  const summary = (output: string) => logMessages(output).filter((l) => l.startsWith('\n* '));
  t.same(summary(replayed.output), summary(recorded.output), 'the same failures, word for word');

  const one = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND, '--test-filter', 'transfer');
  t.equal(one.code, 0, 'the passing test passes offline', { output: one.output });
  t.same(
    logMessages(one.output).filter((l) => l.startsWith('Entity check')),
    logMessages(live.output).filter((l) => l.startsWith('Entity check')),
    'the same checks as against the chain',
  );
});

t.test('a mapping that now reads more of the chain than was recorded fails, naming the call and what to re-record', async (t) => {
  const copy = await copyProject(t, dir);
  t.equal((await idxNodeTestOf(copy, anvil.url, PROGRAM_BACKEND, '--test-filter', 'transfer', '--record')).code, 0);
  const mapping = join(copy, 'src', 'mappings', 'erc20.ts');
  const source = await readFile(mapping, 'utf8');
  for (const [how, read] of [
    ['reads', 'await api.getBalance(from, log.blockNumber);'],
    ['reads and catches the error', 'try { await api.getBalance(from, log.blockNumber); } catch { /* a mapping that carries on */ }'],
  ] as const) {
    await writeFile(mapping, source.replace('const { from, to, value } = log.args;', `const { from, to, value } = log.args;\n  ${read}`));
    await rebuild(copy);
    const { code, output } = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND, '--test-filter', 'transfer');
    t.equal(code, 1, `${how}: exit code 1`, { output });
    t.ok(
      logMessages(output).some(
        (l) =>
          l.startsWith('\n* handleTransfer test\nRecording Error:\nsrc/test/__recordings__/transfer.json holds no answer for eth_getBalance(') &&
          l.includes('idx-node test --record'),
      ),
      `${how}: the summary names the recording, the call and the command that records it again`,
      { output },
    );
  }
  t.equal((await idxNodeTestOf(copy, anvil.url, PROGRAM_BACKEND, '--test-filter', 'transfer', '--record')).code, 0, 're-recorded');
  const again = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND, '--test-filter', 'transfer');
  t.equal(again.code, 0, 'and replayed offline, it passes', { output: again.output });
});

t.test('a recording of another chain, or one damaged, is refused with what to do', async (t) => {
  const copy = await copyProject(t, dir);
  t.equal((await idxNodeTestOf(copy, anvil.url, PROGRAM_BACKEND, '--test-filter', 'transfer', '--record')).code, 0);
  const path = join(copy, 'src', 'test', '__recordings__', 'transfer.json');
  const text = await readFile(path, 'utf8');
  await writeFile(path, text.replace(/"chainId":"\d+"/, '"chainId":"999"'));
  const other = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND, '--test-filter', 'transfer');
  t.equal(other.code, 1);
  t.match(
    other.output,
    /src\/test\/__recordings__\/transfer\.json was recorded from chain 999, but the manifest's network\.chainId is \d+: run idx-node test --record/,
  );
  await writeFile(path, text.slice(0, 100));
  const damaged = await idxNodeTestOf(copy, UNREACHABLE, PROGRAM_BACKEND, '--test-filter', 'transfer');
  t.equal(damaged.code, 1);
  t.match(damaged.output, /transfer\.json: not JSON \(.*\); delete it and run idx-node test --record/);
});

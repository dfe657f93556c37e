import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { startSubstrateChain } from '../devchain/start-substrate-chain.ts';
import { createSubstrateWorkload } from '../devchain/substrate-workload.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { runIdxNodeTest } from './support/idx-node-test.ts';
import { envFor, PROGRAM_BACKEND } from './support/node-backends.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { buildSubstrateStarter } from './support/substrate-project.ts';

exitWhenDone();

/**
 * `idx-node test` on the Substrate starter: a subqlTest of handleTransfer on a block of a real
 * runtime (chopsticks), and a subqlRangeTest with a snapshot over the same block.
 */
const chain = await startSubstrateChain();
t.teardown(() => chain.close());
const w = await createSubstrateWorkload(chain);
t.teardown(() => w.close());
const { bob } = w.accounts;
const AMOUNT = 10n ** 12n;
await w.transfer('alice', bob, AMOUNT);
await w.block();
const height = await chain.height();

// the block's balances.Transfer events as the chain decodes them: the handler runs on each
const hash = await w.api.rpc.chain.getBlockHash(height);
const at = await w.api.at(hash);
const block = await w.api.rpc.chain.getBlock(hash);
const timestamp = Number((await at.query.timestamp.now()).toString());
const transfers = (await at.query.system.events())
  .map((record, idx) => ({ record, idx }))
  .filter(({ record }) => record.event.section === 'balances' && record.event.method === 'Transfer');
const ours = transfers.find(({ record }) => BigInt(record.event.data[2]!.toString()) === AMOUNT)!;
const [from, to] = [ours.record.event.data[0]!.toString(), ours.record.event.data[1]!.toString()];
const extrinsicIndex = ours.record.phase.asApplyExtrinsic.toNumber();
const extrinsicHash = block.block.extrinsics[extrinsicIndex]!.hash.toHex();
const START = 5n;
let received = START;
for (const { record } of transfers) if (record.event.data[1]!.toString() === to) received += BigInt(record.event.data[2]!.toString());

const built = await buildSubstrateStarter(t);
const dir = await copyProject(t, built);
// the starter's own test (checked below, offline) is not this one
await rm(join(dir, 'src', 'test'), { recursive: true });
await rm(join(dir, 'dist', 'test'), { recursive: true, force: true });
await mkdir(join(dir, 'src', 'test'), { recursive: true });
await writeFile(
  join(dir, 'src', 'test', 'transfer.test.ts'),
  `import { subqlTest } from "@subql/testing";
import { Account, Transfer } from "../types";

subqlTest(
  "substrate handleTransfer test",
  ${height},
  [Account.create({ id: "${to}", sent: BigInt(0), received: BigInt(${START}) })],
  [
    Transfer.create({
      id: "${height}-${ours.idx}",
      blockNumber: ${height},
      date: new Date(${timestamp}),
      fromId: "${from}",
      toId: "${to}",
      amount: BigInt("${AMOUNT}"),
      extrinsicHash: "${extrinsicHash}",
    }),
    Account.create({ id: "${to}", sent: BigInt(0), received: BigInt("${received}") }),
  ],
  "handleTransfer",
);
`,
);
// the same block as a range test, with a snapshot: the node's indexing loop over a Substrate chain
await writeFile(
  join(dir, 'src', 'test', 'range.test.ts'),
  `import { subqlRangeTest } from "@subql/testing";
import { Account } from "../types";

subqlRangeTest("substrate range test", {
  from: ${height},
  to: ${height},
  dependentEntities: [Account.create({ id: "${to}", sent: BigInt(0), received: BigInt(${START}) })],
  expectedEntities: [Account.create({ id: "${to}", sent: BigInt(0), received: BigInt("${received}") })],
  snapshot: true,
});
`,
);
await rebuild(dir);

const idxNodeTest = (project: string, endpoint: string, ...args: string[]) => runIdxNodeTest(project, endpoint, envFor(PROGRAM_BACKEND), ...args);

t.test('the Substrate starter: a subqlTest of handleTransfer and a subqlRangeTest over its block pass', async (t) => {
  t.ok((await readFile(join(dir, 'dist', 'test', 'transfer.test.js'), 'utf8')).includes('subqlTests'), 'idx build made the test bundle');
  const { code, output, lines } = await idxNodeTest(dir, chain.wsUrl);
  t.equal(code, 0, 'exit code 0', { output });
  t.ok(lines.includes(`Entity check PASSED (Entity ID: ${height}-${ours.idx})`), 'the transfer as the chain has it', { output });
  t.ok(lines.includes(`Entity check PASSED (Entity ID: ${to})`), 'the dependent account, updated by the handler', { output });
  t.ok(lines.includes('Test: substrate range test completed with 2 passed and 0 failed checks'), 'the range test', { output });
  t.ok(lines.some((l) => l.startsWith('Snapshot written: ') && l.includes('src/test/__snapshots__/range.snap.json')));
  const snapshot = JSON.parse(await readFile(join(dir, 'src', 'test', '__snapshots__', 'range.snap.json'), 'utf8')) as Record<
    string,
    { rows: { entity: string; id: string }[] }
  >;
  t.ok(
    snapshot['substrate range test']!.rows.some((r) => r.entity === 'Transfer' && r.id === `${height}-${ours.idx}`),
    'the transfer is in the snapshot',
  );
  t.ok(lines.includes('Total tests: 2') && lines.includes('Passing tests: 2') && lines.includes('Failing tests: 0'), 'the totals', { output });
});

t.test('a changed expected value fails naming entity, field, expected and actual; a changed mapping fails the snapshot', async (t) => {
  const copy = await copyProject(t, dir);
  const test = join(copy, 'src', 'test', 'transfer.test.ts');
  await writeFile(test, (await readFile(test, 'utf8')).replace(`amount: BigInt("${AMOUNT}")`, `amount: BigInt("${AMOUNT + 1n}")`));
  await rebuild(copy);
  const wrong = await idxNodeTest(copy, chain.wsUrl, '--test-filter', 'transfer');
  t.equal(wrong.code, 1, 'exit code 1', { output: wrong.output });
  t.ok(
    wrong.lines.includes(
      `\n* substrate handleTransfer test\n\tEntity Transfer: ${height}-${ours.idx}\n\t\tattribute: "amount":\n\t\t\texpected: "${AMOUNT + 1n}"\n\t\t\tactual:   "${AMOUNT}"\n`,
    ),
    'the summary names test, entity, field, expected and actual',
    { output: wrong.output },
  );

  const mapping = join(copy, 'src', 'mappings', 'mappingHandlers.ts');
  await writeFile(mapping, (await readFile(mapping, 'utf8')).replace('amount: value,', 'amount: value + BigInt(1),'));
  await rebuild(copy);
  const changed = await idxNodeTest(copy, chain.wsUrl, '--test-filter', 'range');
  t.equal(changed.code, 1, 'the range test fails', { output: changed.output });
  t.ok(
    changed.lines.some((l) => l.startsWith('Snapshot check FAILED')),
    { output: changed.output },
  );
  t.ok(
    changed.lines.some((l) => l.includes(`Transfer ${height}-${ours.idx}, version from block ${height}: "amount"`)),
    'the snapshot difference names the entity, its version and the field',
    { output: changed.output },
  );
});

t.test('recorded, the test passes with the chain unreachable; a new storage read through api fails naming it', async (t) => {
  const copy = await copyProject(t, dir);
  const recorded = await idxNodeTest(copy, chain.wsUrl, '--record');
  t.equal(recorded.code, 0, { output: recorded.output });
  const file = await readFile(join(copy, 'src', 'test', '__recordings__', 'transfer.json'), 'utf8');
  for (const method of ['chain_getBlockHash', 'chain_getBlock', 'state_getMetadata']) t.match(file, `"method":"${method}"`, `${method} recorded`);

  const offline = 'ws://127.0.0.1:9';
  const replayed = await idxNodeTest(copy, offline);
  t.equal(replayed.code, 0, { output: replayed.output });
  t.same(
    replayed.lines.filter((l) => l.startsWith('Entity check') || l.startsWith('Total') || l.startsWith('Passing')),
    recorded.lines.filter((l) => l.startsWith('Entity check') || l.startsWith('Total') || l.startsWith('Passing')),
    'the same checks as against the chain',
  );

  const mapping = join(copy, 'src', 'mappings', 'mappingHandlers.ts');
  const source = await readFile(mapping, 'utf8');
  await writeFile(
    mapping,
    source.replace(
      'const value = (amount as Balance).toBigInt();',
      'const value = (amount as Balance).toBigInt();\n  await api.query.system.account(to.toString());',
    ),
  );
  await rebuild(copy);
  const changed = await idxNodeTest(copy, offline);
  t.equal(changed.code, 1, { output: changed.output });
  t.ok(
    changed.lines.some((l) => l.includes('Recording Error:\nsrc/test/__recordings__/transfer.json holds no answer for state_getStorage(')),
    'the storage read the recording lacks is named',
    { output: changed.output },
  );
});

t.test("the starter's own test (idx init's, npm test) passes offline from its recording", async (t) => {
  const { code, output, lines } = await idxNodeTest(built, 'ws://127.0.0.1:9');
  t.equal(code, 0, 'exit code 0', { output });
  t.ok(lines.includes('Replaying the chain from src/test/__recordings__/transfers.json'), { output });
  t.ok(lines.includes('Test: handleTransfer stores each transfer and what each account received completed with 2 passed and 0 failed checks'), { output });
});

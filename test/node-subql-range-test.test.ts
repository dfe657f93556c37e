import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import t from 'tap';
import { getAddress, toEventSelector } from 'viem/utils';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { runIdxNodeTest } from './support/idx-node-test.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { BACKENDS, envFor, PROGRAM_BACKEND } from './support/node-backends.ts';
import type { BackendKind } from './support/test-backends.ts';

exitWhenDone();

/**
 * `idx-node test` with idx's `subqlRangeTest`: the ERC20 starter indexed over the blocks of a real
 * chain's (anvil) transfers into the throwaway store, an expected balance checked, and every
 * version it wrote kept in a snapshot file: written on the first run, matched on the next (on each
 * database), failing with the entity, id, version and field once the mapping writes another value,
 * and accepted with --update-snapshots.
 */
const { anvil, client, built } = await setupErc20Chain(t, 3);
const dir = await copyProject(t, built);

interface Log {
  blockNumber: string;
  transactionHash: string;
  logIndex: string;
  topics: string[];
  data: string;
}
const logs = await client.request<Log[]>('eth_getLogs', [
  { fromBlock: '0x0', toBlock: 'latest', topics: [toEventSelector('Transfer(address,address,uint256)')] },
]);
const heights = logs.map((l) => Number(l.blockNumber));
const [from, to] = [Math.min(...heights), Math.max(...heights)];
const address = (topic: string) => getAddress(`0x${topic.slice(26)}`);
// a holder given a starting balance (a dependent entity), and its balance after every transfer of the range
const holder = address(logs[logs.length - 1]!.topics[2]!);
const START = 10n ** 30n;
let balance = START;
for (const l of logs) {
  if (address(l.topics[1]!) === holder) balance -= BigInt(l.data);
  if (address(l.topics[2]!) === holder) balance += BigInt(l.data);
}
const NAME = 'erc20 transfers over a range';
await mkdir(join(dir, 'src', 'test'), { recursive: true });
await writeFile(
  join(dir, 'src', 'test', 'range.test.ts'),
  `import { subqlRangeTest } from "@subql/testing";
import { Account } from "../types";

subqlRangeTest("${NAME}", {
  from: ${from},
  to: ${to},
  dependentEntities: [Account.create({ id: "${holder}", balance: BigInt("${START}") })],
  expectedEntities: [Account.create({ id: "${holder}", balance: BigInt("${balance}") })],
  snapshot: true,
});
`,
);
await writeFile(
  join(dir, 'src', 'test', 'beyond.test.ts'),
  `import { subqlRangeTest } from "@subql/testing";

subqlRangeTest("beyond the head", { from: ${to}, to: ${to + 100} });
`,
);
await rebuild(dir);
const snapFile = join(dir, 'src', 'test', '__snapshots__', 'range.snap.json');

const idxNodeTest = (kind: BackendKind, ...args: string[]) => runIdxNodeTest(dir, anvil.url, envFor(kind), ...args);

interface Row {
  entity: string;
  id: string;
  blockRange: [number, number | null];
  fields: Record<string, unknown>;
}
const snapshotRows = async () => (JSON.parse(await readFile(snapFile, 'utf8')) as Record<string, { from: number; to: number; rows: Row[] }>)[NAME]!;
const firstTransfer = logs[0]!;
const firstId = `${firstTransfer.transactionHash}-${Number(firstTransfer.logIndex)}`;

t.test('first run: the range is indexed, the balance checked, the snapshot written', async (t) => {
  t.notOk(existsSync(snapFile), 'no snapshot before');
  const { code, lines, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'range');
  t.equal(code, 0, 'exit code 0', { output });
  t.ok(lines.includes(`Starting test: ${NAME}`));
  t.ok(lines.includes(`Entity check PASSED (Entity ID: ${holder})`), 'the dependent balance plus every transfer of the range', { output });
  const written = lines.find((l) => l.startsWith('Snapshot written: '));
  t.match(written, /^Snapshot written: \d+ rows to src\/test\/__snapshots__\/range\.snap\.json \(there was none for this test\)$/, { output });
  t.ok(lines.includes(`Test: ${NAME} completed with 2 passed and 0 failed checks`), { output });

  const snap = await snapshotRows();
  t.same([snap.from, snap.to], [from, to]);
  const transfers = snap.rows.filter((r) => r.entity === 'Transfer');
  t.equal(transfers.length, logs.length, 'a version per transfer of the range');
  const first = transfers.find((r) => r.id === firstId)!;
  t.same(first.blockRange, [Number(firstTransfer.blockNumber), null]);
  t.same(first.fields.value, { $bigint: BigInt(firstTransfer.data).toString() }, 'BigInts tagged');
  t.match(first.fields.timestamp, { $date: /^\d{4}-\d\d-\d\dT/ }, 'dates tagged');
  const holderVersions = snap.rows.filter((r) => r.entity === 'Account' && r.id === holder);
  t.same(holderVersions[0]!.blockRange[0], from, 'the dependent entity is stored at "from"');
  t.ok(
    holderVersions.length > 1 && holderVersions.slice(0, -1).every((r) => r.blockRange[1] !== null),
    'with its history: every version but the live one closed',
  );
  t.same(holderVersions[holderVersions.length - 1]!.fields.balance, { $bigint: balance.toString() });
  t.ok(
    snap.rows.some((r) => r.entity === 'StarterEntity'),
    'the block handler ran too: every data source and handler of the manifest',
  );
  t.equal(written, `Snapshot written: ${snap.rows.length} rows to src/test/__snapshots__/range.snap.json (there was none for this test)`);
});

for (const kind of BACKENDS) {
  t.test(`${kind}: the next run matches the snapshot, the file untouched`, async (t) => {
    const before = await readFile(snapFile, 'utf8');
    const { code, lines, output } = await idxNodeTest(kind, '--test-filter', 'range');
    t.equal(code, 0, 'exit code 0', { output });
    t.ok(
      lines.some((l) => /^Snapshot check PASSED \(\d+ rows, src\/test\/__snapshots__\/range\.snap\.json\)$/.test(l)),
      { output },
    );
    t.equal(await readFile(snapFile, 'utf8'), before);
  });
}

t.test('a changed mapping fails the snapshot, naming entity, id, version, field and both values', async (t) => {
  const mapping = join(dir, 'src', 'mappings', 'erc20.ts');
  const source = await readFile(mapping, 'utf8');
  t.ok(source.includes('    value: amount,'));
  await writeFile(mapping, source.replace('    value: amount,', '    value: amount + 1n,'));
  await rebuild(dir);
  const before = await readFile(snapFile, 'utf8');
  const { code, lines, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'range');
  t.equal(code, 1, 'exit code 1', { output });
  t.ok(lines.includes(`Entity check PASSED (Entity ID: ${holder})`), 'the balances are unchanged');
  t.ok(lines.includes(`Snapshot check FAILED (${logs.length} differences with src/test/__snapshots__/range.snap.json)`), { output });
  t.ok(lines.includes(`Test: ${NAME} completed with 1 passed and 1 failed checks`));
  const detail = lines.find((l) => l.startsWith(`\n* ${NAME}\n\tSnapshot `));
  // differences come in row order: entity, then id
  const shown = logs.map((l) => ({ l, id: `${l.transactionHash}-${Number(l.logIndex)}` })).sort((a, b) => (a.id < b.id ? -1 : 1))[0]!;
  const value = BigInt(shown.l.data);
  t.ok(
    detail?.startsWith(
      `\n* ${NAME}\n\tSnapshot src/test/__snapshots__/range.snap.json: ${logs.length} differences\n` +
        `\t\tTransfer ${shown.id}, version from block ${Number(shown.l.blockNumber)}: "value"\n\t\t\tsnapshot: ${value}n\n\t\t\tactual:   ${value + 1n}n\n`,
    ),
    'the summary names entity, id, version, field, snapshot and actual value',
    { output },
  );
  t.ok(detail?.includes(`\t\t... and ${logs.length - 20} more differences\n`), 'the first 20, and a count of the rest');
  t.ok(detail?.endsWith('If the change is intended, run the tests again with --update-snapshots to accept it.'));
  t.ok(lines.includes('Failing tests: 1'));
  t.equal(await readFile(snapFile, 'utf8'), before, 'the snapshot stays as it was');
});

t.test('--update-snapshots accepts the change; the next run passes', async (t) => {
  const updated = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'range', '--update-snapshots');
  t.equal(updated.code, 0, 'exit code 0', { output: updated.output });
  t.ok(updated.lines.some((l) => /^Snapshot updated: \d+ rows in src\/test\/__snapshots__\/range\.snap\.json \(--update-snapshots\)$/.test(l)));
  const first = (await snapshotRows()).rows.find((r) => r.entity === 'Transfer' && r.id === firstId)!;
  t.same(first.fields.value, { $bigint: (BigInt(firstTransfer.data) + 1n).toString() });
  const again = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'range');
  t.equal(again.code, 0, { output: again.output });
  t.ok(again.lines.some((l) => l.startsWith('Snapshot check PASSED')));
});

t.test('a range past the chain head fails with the reason, without waiting', async (t) => {
  const { code, lines, output } = await idxNodeTest(PROGRAM_BACKEND, '--test-filter', 'beyond');
  t.equal(code, 1, { output });
  t.ok(
    lines.some((l) => l.startsWith('\n* beyond the head\nFetch Block Error:\n') && l.includes(`block ${to + 100} does not exist yet`)),
    { output },
  );
});

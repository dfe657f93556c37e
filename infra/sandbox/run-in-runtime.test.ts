import t from 'tap';
import type { HandlerCall } from '../../domain/chains/ethereum/handler-call.ts';
import { createPreludeCache } from './create-prelude-cache.ts';
import { createSandbox, type SandboxOptions } from './create-sandbox.ts';
import { block, createFakeHost, ERC20_ABI, transferLog, transferTx } from './fixtures/fake-host.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';

exitWhenDone();

// Runs of blocks (many blocks to one entry into the sandbox): what the host sees must be what it sees when each block
// runs alone. Both runtimes: the isolate, and node:vm (--unsafe).
const prelude = createPreludeCache();
const abi = ERC20_ABI as unknown as NonNullable<Extract<HandlerCall, { kind: 'log' }>['abi']>;
const call: HandlerCall = { handler: 'handle', kind: 'log', index: 0, abi };

async function sandbox(code: string, options: Partial<Omit<SandboxOptions, 'host'>> = {}) {
  const fake = createFakeHost();
  const sb = await createSandbox({
    code: `module.exports.handle = ${code};`,
    fileName: '/project/dist/index.js',
    prelude,
    timeoutMs: 2000,
    ...options,
    host: fake.host,
  });
  t.teardown(() => sb.dispose());
  return { sb, ...fake };
}

/** blocks 100… of one transfer each; entering a block is noted in `calls`, as the host sees it */
const blocksOf = (heights: number[], calls: unknown[][]) =>
  heights.map((h) => ({ content: { block: block(h), logs: [transferLog(0, 1n, h)] }, calls: [call], enter: () => void calls.push(['enter', h]) }));

/** the calls the host saw, a block entered twice in a row noted once */
const seen = (calls: unknown[][]) =>
  calls
    .filter((c, i) => c[0] !== 'enter' || JSON.stringify(c) !== JSON.stringify(calls[i - 1]))
    .map((c) =>
      c[0] === 'enter' || c[0] === 'createDynamicDatasource'
        ? `${c[0]} ${String(c[1])}`
        : `${String(c[0])} ${String(c[2])}${c[3] ? ` ${JSON.stringify(c[3])}` : ''}`,
    );

for (const unsafe of [false, true]) {
  const mode = unsafe ? 'node:vm' : 'isolate';

  t.test(`${mode}: each block's writes follow its enter, and a host read in a later block sees the writes an earlier one left unsent`, async (t) => {
    const { sb, calls } = await sandbox(
      `async (log) => {
        const c = (await store.get('Counter', 'c')) ?? { id: 'c', n: 0 };
        c.n += 1;
        await store.set('Counter', 'c', c);
      }`,
      { unsafe, readCacheSize: 0 },
    );
    const run = await sb.runBlocks(blocksOf([100, 101, 102], calls));
    t.same(run, { completed: 3 });
    t.same(seen(calls), [
      'enter 100',
      'get c',
      'set c {"id":"c","n":1}',
      'enter 101',
      'get c',
      'set c {"id":"c","n":2}',
      'enter 102',
      'get c',
      'set c {"id":"c","n":3}',
    ]);
  });

  t.test(`${mode}: a failed block keeps the blocks before it, their writes unsent until then included, and drops its own`, async (t) => {
    const { sb, calls } = await sandbox(
      `async (log) => {
        await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
        if (log.blockNumber === 102) throw new Error('boom at 102');
      }`,
      { unsafe },
    );
    const run = await sb.runBlocks(blocksOf([100, 101, 102, 103], calls));
    t.equal(run.completed, 2);
    t.match(run.error, { code: 'HANDLER_FAILED', message: /Handler handle failed at block 102: boom at 102/ });
    t.same(seen(calls), ['enter 100', 'set 100 {"id":"100"}', 'enter 101', 'set 101 {"id":"101"}']);
    // the next run starts afresh from the failed block, as the indexer retries it
    calls.length = 0;
    t.same(await sb.runBlocks(blocksOf([103], calls)), { completed: 1 });
    t.same(seen(calls), ['enter 103', 'set 103 {"id":"103"}']);
  });

  t.test(`${mode}: a block that creates a data source ends the run: the later blocks were handed over without it`, async (t) => {
    const { sb, calls } = await sandbox(
      `async (log) => {
        if (log.blockNumber === 101) await createDynamicDatasource('Pool', { address: '0x01' });
        await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
      }`,
      { unsafe },
    );
    t.same(await sb.runBlocks(blocksOf([100, 101, 102], calls)), { completed: 2 });
    t.same(seen(calls), ['enter 100', 'set 100 {"id":"100"}', 'enter 101', 'createDynamicDatasource Pool', 'set 101 {"id":"101"}']);
  });

  t.test(`${mode}: past its time budget a run ends after the block running`, async (t) => {
    const { sb, calls } = await sandbox(
      `async (log) => {
        await new Promise((resolve) => setTimeout(resolve, 30));
        await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
      }`,
      { unsafe },
    );
    const run = await sb.runBlocks(blocksOf([100, 101, 102, 103, 104], calls), 40);
    t.ok(run.completed >= 1 && run.completed < 5, `ended early: ${run.completed} of 5 blocks`);
    t.equal(run.error, undefined);
    t.equal(calls.filter((c) => c[0] === 'set').length, run.completed, 'the writes of the blocks it ran, and no other');
  });
}

t.test('isolate: a timeout in a run counts as completed only the blocks whose writes the host received', async (t) => {
  const { sb, calls } = await sandbox(
    `async (log) => {
      await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
      if (log.blockNumber === 101) for (;;);
    }`,
    { timeoutMs: 300 },
  );
  const run = await sb.runBlocks(blocksOf([100, 101, 102], calls));
  t.equal(run.completed, 0, "block 100's writes never left the isolate: it runs again");
  t.match(run.error, { code: 'SANDBOX_TIMEOUT', message: /at block 101/ });
  t.same(seen(calls), ['enter 100']);
  calls.length = 0;
  t.same(await sb.runBlocks(blocksOf([100], calls)), { completed: 1 }, 'a fresh runtime runs it again');
  t.same(seen(calls), ['enter 100', 'set 100 {"id":"100"}']);
});

t.test('isolate: what a block loads on first read (its transactions, its logs) is its own, however far into a run, with no write sent before', async (t) => {
  const fake = createFakeHost({
    blockExtras: async (height) => ({ transactions: [{ ...transferTx(), hash: `0x${height.toString(16).padStart(64, '0')}` }] }),
  });
  const sb = await createSandbox({
    code: `module.exports.handle = async (log) => { await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber), txs: log.block.transactions.length, first: log.block.transactions[0].hash }); };`,
    fileName: '/project/dist/index.js',
    prelude,
    timeoutMs: 2000,
    host: fake.host,
  });
  t.teardown(() => sb.dispose());
  t.same(await sb.runBlocks(blocksOf([100, 101, 102], fake.calls)), { completed: 3 });
  t.same(
    fake.calls.filter((c) => c[0] === 'blockExtras').map((c) => c[1]),
    [100, 101, 102],
    'each block asked for its own height',
  );
  const firsts = fake.calls.filter((c) => c[0] === 'set').map((c) => (c[3] as { first: string }).first);
  t.same(
    firsts,
    [100, 101, 102].map((h) => `0x${h.toString(16).padStart(64, '0')}`),
    "each block's handler saw its own block's transactions",
  );
});

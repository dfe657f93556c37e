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

/** each block reads the count, adds one and writes it back: with no read cache inside, every read reaches the host */
const COUNTER = `async (log) => {
  const c = (await store.get('Counter', 'c')) ?? { id: 'c', n: 0 };
  c.n += 1;
  await store.set('Counter', 'c', c);
}`;

for (const unsafe of [false, true]) {
  const mode = unsafe ? 'node:vm' : 'isolate';

  t.test(`${mode}: each block's writes follow its enter, and a host read in a later block sees the writes an earlier one left unsent`, async (t) => {
    const { sb, calls } = await sandbox(COUNTER, { unsafe, readCacheSize: 0 });
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

  t.test(`${mode}: a completed block's writes reach the host while the run goes on`, async (t) => {
    const { sb, calls, host } = await sandbox(
      `async (log) => {
        await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
        if (log.blockNumber === 101) await new Promise((resolve) => setTimeout(resolve, 100));
      }`,
      { unsafe },
    );
    const appliedAt = new Map<string, number>();
    const set = host.store.set.bind(host.store);
    host.store.set = async (entity, id, data) => {
      appliedAt.set(id, Date.now());
      return set(entity, id, data);
    };
    const run = await sb.runBlocks(blocksOf([100, 101, 102], calls));
    const ended = Date.now();
    t.same(run, { completed: 3 });
    const early = ended - appliedAt.get('100')!;
    t.ok(early >= 60, `block 100's write was applied while block 101 still ran (${early} ms before the run ended)`);
    t.same(seen(calls), ['enter 100', 'set 100 {"id":"100"}', 'enter 101', 'set 101 {"id":"101"}', 'enter 102', 'set 102 {"id":"102"}']);
  });

  t.test(`${mode}: a later block's read waits for the writes shipped before it, however slowly the host applies them`, async (t) => {
    const { sb, calls, host } = await sandbox(COUNTER, { unsafe, readCacheSize: 0 });
    const set = host.store.set.bind(host.store);
    host.store.set = async (...args) => {
      await new Promise((resolve) => setTimeout(resolve, 15));
      return set(...args);
    };
    t.same(await sb.runBlocks(blocksOf([100, 101, 102], calls)), { completed: 3 });
    t.same(
      calls.filter((c) => c[0] === 'set').map((c) => (c[3] as { n: number }).n),
      [1, 2, 3],
      'each block read the count the block before it wrote',
    );
  });

  t.test(`${mode}: a write the host refuses in a shipped block fails that block; later blocks' writes are not applied, and the next run goes on`, async (t) => {
    const { sb, calls, host } = await sandbox(`async (log) => { await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) }); }`, {
      unsafe,
    });
    const set = host.store.set.bind(host.store);
    host.store.set = async (entity, id, data) => {
      if (id === '101') throw new Error('refused 101');
      return set(entity, id, data);
    };
    const run = await sb.runBlocks(blocksOf([100, 101, 102, 103], calls));
    t.equal(run.completed, 1);
    t.match(run.error, { message: /block 101/ });
    t.match(run.error, { message: /refused 101/ });
    t.same(
      calls.filter((c) => c[0] === 'set').map((c) => c[2]),
      ['100'],
      'nothing after the refused write',
    );
    calls.length = 0;
    t.same(await sb.runBlocks(blocksOf([104, 105], calls)), { completed: 2 });
    t.same(
      calls.filter((c) => c[0] === 'set').map((c) => c[2]),
      ['104', '105'],
    );
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
    // block 101's writes were shipped as block 102 began, with its marker; nothing block 102 wrote reached the host
    t.same(seen(calls), ['enter 100', 'set 100 {"id":"100"}', 'enter 101', 'set 101 {"id":"101"}', 'enter 102']);
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

// a block stuck in a loop: the blocks before it whose writes the host holds whole are complete, and nothing of it
// reached the host (its marker only: its writes are shipped when the next block begins)
for (const [stuck, completed, reached] of [
  [101, 1, ['enter 100', 'set 100 {"id":"100"}', 'enter 101']],
  [100, 0, ['enter 100']],
] as const) {
  t.test(`isolate: a timeout at block ${stuck} of a run counts complete the ${completed} block(s) whose writes the host received`, async (t) => {
    const { sb, calls } = await sandbox(
      `async (log) => {
        await store.set('Seen', String(log.blockNumber), { id: String(log.blockNumber) });
        if (log.blockNumber === ${stuck}) for (;;);
      }`,
      { timeoutMs: 300 },
    );
    const run = await sb.runBlocks(blocksOf([100, 101, 102], calls));
    t.equal(run.completed, completed);
    t.match(run.error, { code: 'SANDBOX_TIMEOUT', message: new RegExp(`at block ${stuck}`) });
    t.same(seen(calls), reached);
    calls.length = 0;
    t.same(await sb.runBlocks(blocksOf([102], calls)), { completed: 1 }, 'a fresh runtime runs the next block');
    t.same(seen(calls), ['enter 102', 'set 102 {"id":"102"}']);
  });
}

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

import { createHash, createHmac } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { transformSync } from '@swc/core';
import { rollup, type Plugin } from 'rollup';
import t from 'tap';
import type { HandlerCall } from '../../domain/chains/ethereum/handler-call.ts';
import type { EthereumMappingHost as MappingHost } from '../../domain/chains/ethereum/ethereum-mapping-host.ts';
import { createPreludeCache } from './create-prelude-cache.ts';
import { createSandbox, type SandboxOptions } from './create-sandbox.ts';
import { block, createFakeHost, ERC20_ABI, FROM, TO, TOKEN, transferLog, transferTx, TX_HASH } from './fixtures/fake-host.ts';
import type { SandboxError } from './sandbox-error.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';

exitWhenDone();

// one runtime bundle for the whole file, as the node shares one per process
const prelude = createPreludeCache();
const FILE = '/project/dist/index.js';
const abi = ERC20_ABI as unknown as NonNullable<Extract<HandlerCall, { kind: 'log' }>['abi']>;

async function sandbox(code: string, options: Partial<Omit<SandboxOptions, 'host'>> & { host?: Partial<MappingHost> } = {}) {
  const fake = createFakeHost(options.host);
  const sb = await createSandbox({ code, fileName: FILE, prelude, timeoutMs: 2000, ...options, host: fake.host });
  t.teardown(() => sb.dispose());
  return { sb, ...fake };
}

const logCall = (handler: string, index = 0): HandlerCall => ({ handler, kind: 'log', index, abi });
const oneTransfer = (value = 1000n) => ({ block: block(100), logs: [transferLog(0, value)] });
const rejection = async (p: Promise<unknown>): Promise<SandboxError> => {
  try {
    await p;
  } catch (err) {
    return err as SandboxError;
  }
  throw new Error('expected a rejection');
};

t.test('a log handler sees SubQuery-shaped fields and ethers-style decoded args', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.handleTransfer = async function (log) {
      const a = log.args;
      await store.set('Seen', 'x', {
        id: 'x',
        fromLower: a.from.toLowerCase(), from: a.from, to: a[1], positional: a[0] === a.from, length: a.length,
        value: a.value.toBigInt(), valueString: a.value.toString(), valueNumber: a.value.toNumber(), hex: a.value.toHexString(),
        isBn: a.value._isBigNumber, math: a.value.add(5).mul(2).sub(10).div(2).toBigInt(), cmp: [a.value.eq(1000), a.value.gt(999), a.value.lt(1001), a.value.isZero()],
        address: log.address, blockNumber: log.blockNumber, logIndex: log.logIndex, txIndex: log.transactionIndex, txHash: log.transactionHash, removed: log.removed,
        timestamp: log.block.timestamp, blockNum: log.block.number, blockLogs: log.block.logs.length, topics: log.topics.length,
        txHash2: log.transaction.hash, txFrom: log.transaction.from, frozen: Object.isFrozen(a),
      });
    };
  `,
    {
      host: {
        blockExtras: async (_h, want) => ({ ...(want.transactions && { transactions: [transferTx()] }), ...(want.logs && { logs: [transferLog(0, 1000n)] }) }),
      },
    },
  );
  t.same(sb.handlers, ['handleTransfer']);
  await sb.runBlock(oneTransfer(), [logCall('handleTransfer')]);
  t.same(
    calls.filter((c) => c[0] === 'set'),
    [
      [
        'set',
        'Seen',
        'x',
        {
          id: 'x',
          fromLower: FROM,
          from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
          to: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
          positional: true,
          length: 3,
          value: 1000n,
          valueString: '1000',
          valueNumber: 1000,
          hex: '0x03e8',
          isBn: true,
          math: 1000n,
          cmp: [true, true, true, false],
          address: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
          blockNumber: 100,
          logIndex: 0,
          txIndex: 0,
          txHash: TX_HASH,
          removed: false,
          timestamp: 1_700_000_000n,
          blockNum: 100,
          blockLogs: 1,
          topics: 3,
          txHash2: TX_HASH,
          txFrom: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
          frozen: true,
        },
      ],
    ],
  );
});

// SubQuery hands handlers whole blocks; idx loads what a block was fetched without on first read.
const OTHER_TX = `0x${'cd'.repeat(32)}`;
const APPROVAL_TOPIC = '0x8c5be1e5ebec7d5bd14f71427d1e84f3dd0314c0f7b2291e5b200ac8c7c3b925';
const wholeBlock = () => {
  const other = { ...transferTx(), hash: OTHER_TX, transactionIndex: 1, nonce: 8 };
  const approval = {
    ...transferLog(0, 5n),
    address: `0x${'99'.repeat(20)}`,
    topics: [APPROVAL_TOPIC, transferLog(0, 0n).topics[1]!, transferLog(0, 0n).topics[2]!],
  };
  const otherLog = { ...transferLog(2, 9n), transactionHash: OTHER_TX, transactionIndex: 1 };
  return { transactions: [transferTx(), other], logs: [approval, transferLog(1, 1000n), otherLog] };
};
const servingWholeBlock = () => ({
  blockExtras: async (_h: number, want: { transactions: boolean; logs: boolean }) => {
    const b = wholeBlock();
    return { ...(want.transactions && { transactions: b.transactions }), ...(want.logs && { logs: b.logs }) };
  },
});

t.test('log.transaction, block.transactions, block.logs and tx.logs: every one of the block, loaded once on first read', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.handleTransfer = async function (log) {
      const tx = log.transaction;
      await store.set('Seen', String(log.logIndex), {
        id: String(log.logIndex), txHash: tx.hash, txFrom: tx.from, txValue: tx.value, again: log.transaction === tx,
        txLogs: tx.logs.map((l) => l.logIndex), sameLog: tx.logs[1] === log, txOfTxLog: tx.logs[0].transaction === tx,
        blockLogs: log.block.logs.map((l) => l.address.slice(0, 4) + l.logIndex), blockTxs: log.block.transactions.map((t) => t.hash),
        args: log.args.value.toBigInt(),
      });
    };
  `,
    { host: servingWholeBlock() },
  );
  // only the Transfer at log index 1 was matched and fetched
  await sb.runBlock({ block: block(100), logs: [transferLog(1, 1000n)] }, [logCall('handleTransfer')]);
  t.same(
    calls.filter((c) => c[0] === 'blockExtras'),
    [
      ['blockExtras', 100, { transactions: true, logs: false }],
      ['blockExtras', 100, { transactions: false, logs: true }],
    ],
    'one load per kind of data, however often it is read',
  );
  t.same(calls.find((c) => c[0] === 'set')![3], {
    id: '1',
    txHash: TX_HASH,
    txFrom: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    txValue: 10n ** 18n,
    again: true,
    txLogs: [0, 1],
    sameLog: true,
    txOfTxLog: true,
    blockLogs: ['0x990', '0xdb1', '0xdb2'],
    blockTxs: [TX_HASH, OTHER_TX],
    args: 1000n,
  });
});

t.test("a log kept from an earlier block reads that block's transaction; `transaction` stays a hidden getter of the log", async (t) => {
  // each block's transaction has the block's own `nonce`, so an answer from the wrong block shows
  const txAt = (height: number) => ({ ...transferTx(height), nonce: height });
  const { sb, calls } = await sandbox(
    `
    let kept;
    module.exports.handleTransfer = async function (log) {
      const d = Object.getOwnPropertyDescriptor(log, 'transaction');
      const earlier = kept === undefined ? null : kept.transaction.nonce;
      kept ??= log;
      await store.set('Seen', String(log.blockNumber), {
        id: String(log.blockNumber), nonce: log.transaction.nonce, earlier,
        getter: typeof d.get, enumerable: d.enumerable, configurable: d.configurable,
        hidden: !Object.keys(log).includes('transaction') && JSON.stringify(log).indexOf('"transaction"') === -1,
      });
    };
  `,
    {
      host: {
        blockExtras: async (height: number, want: { transactions: boolean; logs: boolean }) => ({
          ...(want.transactions && { transactions: [txAt(height)] }),
          ...(want.logs && { logs: [transferLog(0, 1n, height)] }),
        }),
      },
    },
  );
  for (const height of [100, 101]) await sb.runBlock({ block: block(height), logs: [transferLog(0, 1n, height)] }, [logCall('handleTransfer')]);
  const seen = calls.filter((c) => c[0] === 'set').map((c) => c[3]);
  const shape = { getter: 'function', enumerable: false, configurable: true, hidden: true };
  t.same(seen, [
    { id: '100', nonce: 100, earlier: null, ...shape },
    { id: '101', nonce: 101, earlier: 100, ...shape },
  ]);
});

t.test('a mapping that never reads them loads nothing', async (t) => {
  const { sb, calls } = await sandbox(
    `module.exports.handleTransfer = async (log) => { await store.set('Seen', 'x', { id: 'x', v: log.args.value.toBigInt(), keys: Object.keys(log).length }); };`,
    { host: servingWholeBlock() },
  );
  await sb.runBlock(oneTransfer(), [logCall('handleTransfer')]);
  t.same(
    calls.map((c) => c[0]),
    ['set'],
  );
});

t.test("a transaction handler sees every log of its transaction in tx.logs, decoded by the data source's ABI", async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.handleTx = async function (tx) {
      const transfer = tx.logs.find((l) => l.args !== undefined && l.args.value !== undefined);
      await store.set('Tx', tx.hash, { id: tx.hash, logs: tx.logs.map((l) => l.logIndex), value: transfer ? transfer.args.value.toBigInt() : null, blockLogs: tx.block === undefined ? tx.blockNumber : 0 });
    };
  `,
    { host: servingWholeBlock() },
  );
  // a transaction handler alone: the block has its transactions but no logs were fetched
  await sb.runBlock({ block: block(100, wholeBlock().transactions), logs: [] }, [{ handler: 'handleTx', kind: 'transaction', index: 0, abi }]);
  t.same(
    calls.filter((c) => c[0] === 'blockExtras'),
    [['blockExtras', 100, { transactions: false, logs: true }]],
  );
  t.same(calls.find((c) => c[0] === 'set')![3], { id: TX_HASH, logs: [0, 1], value: 1000n, blockLogs: 100 });
});

t.test('store calls reach the host in order, reads return host data and see earlier writes', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.handleTransfer = async function (log) {
      const before = await store.get('Account', 'a');
      await store.set('Account', 'a', { id: 'a', balance: (before ? before.balance : 0n) + log.args.value.toBigInt(), when: new Date(0), tags: ['x'] });
      const after = await store.get('Account', 'a');
      await store.set('Check', 'c', { id: 'c', sawBalance: after.balance, isBigint: typeof after.balance === 'bigint', isDate: after.when instanceof Date });
      const entity = { id: 'm', n: 1n };
      await store.set('Mutated', 'm', entity);
      entity.n = 2n;
      await store.bulkCreate('Account', [{ id: 'b', balance: 1n }, { id: 'c', balance: 2n }]);
      await store.bulkUpdate('Account', [{ id: 'b', balance: 3n }], ['balance']);
      await store.remove('Account', 'c');
      await store.bulkRemove('Account', ['b']);
      const byField = await store.getByField('Account', 'id', 'a');
      await store.set('Check', 'd', { id: 'd', found: byField.length });
    };
  `,
    { readCacheSize: 0 },
  );
  await sb.runBlock(oneTransfer(7n), [logCall('handleTransfer')]);
  await sb.runBlock(oneTransfer(5n), [logCall('handleTransfer')]);
  const ops = calls.map((c) => `${c[0]} ${c[1]}`);
  t.same(ops.slice(0, 11), [
    'get Account',
    'set Account',
    'get Account',
    'set Check',
    'set Mutated',
    'bulkCreate Account',
    'bulkUpdate Account',
    'remove Account',
    'bulkRemove Account',
    'getByField Account',
    'set Check',
  ]);
  t.same(calls[5]![2], [
    { id: 'b', balance: 1n },
    { id: 'c', balance: 2n },
  ]);
  t.same(calls[8]![2], ['b']);
  t.same(calls[1]![3], { id: 'a', balance: 7n, when: new Date(0), tags: ['x'] });
  t.same(calls[3]![3], { id: 'c', sawBalance: 7n, isBigint: true, isDate: true });
  t.same(calls[4]![3], { id: 'm', n: 1n }, 'a write is a snapshot taken when the mapping made it');
  t.same(calls[6]!.slice(2), [[{ id: 'b', balance: 3n }], ['balance']]);
  t.same(calls[9]![4], { limit: 100 }, 'the default limit is the query limit');
  t.same(calls[10]![3], { id: 'd', found: 1 });
  t.same(calls[12]![3], { id: 'a', balance: 12n, when: new Date(0), tags: ['x'] }, 'the second block reads the first block’s write');
});

t.test('work a handler starts and does not await belongs to its block: its reads and writes reach the host before the block ends', async (t) => {
  const { sb, calls } = await sandbox(
    `
    async function later(log) {
      for (let k = 0; k < 5; k++) await store.get('Miss', 'k' + k);
      const seen = await store.get('Account', 'a');
      await store.set('Account', 'a', { id: 'a', n: (seen ? seen.n : 0n) + log.args.value.toBigInt() });
      store.set('Late', String(log.blockNumber), { id: String(log.blockNumber) });
    }
    module.exports.handleAsync = async function (log) { later(log); };
    module.exports.handlePlain = function (log) { later(log); };
  `,
    { readCacheSize: 0 },
  );
  await sb.runBlock(oneTransfer(7n), [logCall('handleAsync')]);
  const first = calls.map((c) => `${c[0]} ${c[1]}`);
  t.same(first.slice(-2), ['set Account', 'set Late'], 'the chain ran to its end within the block');
  await sb.runBlock(oneTransfer(5n), [logCall('handlePlain')]);
  t.same(
    calls.slice(first.length).map((c) => `${c[0]} ${c[1]}`),
    ['get Miss', 'get Miss', 'get Miss', 'get Miss', 'get Miss', 'get Account', 'set Account', 'set Late'],
    'the next block carries its own chain only, which sees the first one’s write',
  );
  t.same(calls.at(-2)![3], { id: 'a', n: 12n });
});

t.test('the read cache answers repeated gets without the host, with copies, and forgets on failures and rewinds', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.touch = async function () {
      const a = (await store.get('Account', 'a')) ?? { id: 'a', n: 0n };
      a.n += 1n;
      await store.set('Account', 'a', a);
      const again = await store.get('Account', 'a');
      again.n = 999n; // the mapping's own copy: changing it changes nothing else
      const third = await store.get('Account', 'a');
      await store.set('Seen', 's', { id: 's', n: third.n });
      await store.get('Missing', 'm');
      await store.get('Missing', 'm');
    };
    module.exports.fail = async function () { throw new Error('boom'); };
  `);
  const run = (height: number, handlers = ['touch']) =>
    sb.runBlock(
      { block: block(height), logs: [transferLog(0, 1n, height)] },
      handlers.map((h) => logCall(h)),
    );
  const gets = () => calls.filter((c) => c[0] === 'get').map((c) => `${c[1]}:${c[2]}`);
  await run(100);
  t.same(gets(), ['Account:a', 'Missing:m'], 'one host read per entity, also for an absent one');
  t.same(calls.find((c) => c[1] === 'Seen')![3], { id: 's', n: 1n });
  await run(101);
  t.same(gets(), ['Account:a', 'Missing:m'], 'the next block reads from the cache');
  t.same(calls.filter((c) => c[1] === 'Seen').at(-1)![3], { id: 's', n: 2n });
  await run(101);
  t.same(gets().length, 4, 'a height seen again (a rewind or retry) clears the cache');
  await rejection(run(102, ['touch', 'fail']));
  await run(102);
  t.same(gets().length, 6, 'a failed block clears the cache');
});

for (const unsafe of [false, true])
  t.test(
    `fresh entity types${unsafe ? ' (--unsafe)' : ''}: an id never written is absent without asking the host; a new runtime after a reset asks again`,
    async (t) => {
      const { sb, calls } = await sandbox(
        `
      module.exports.touch = async function () {
        for (const id of ['a', 'b']) {
          const a = (await store.get('Account', id)) ?? { id, n: 0n };
          a.n += 1n;
          await store.set('Account', id, a);
        }
        await store.bulkCreate('Account', [{ id: 'c', n: 5n }]);
        await store.get('Token', 't');
      };
      module.exports.late = async function () { await store.get('Account', 'c'); await store.get('Account', 'z'); };
      module.exports.spin = async function () { for (;;) {} };
    `,
        { freshEntities: ['Account'], readCacheSize: 0, unsafe, timeoutMs: 500 },
      );
      const gets = () => calls.filter((c) => c[0] === 'get').map((c) => `${c[1]}:${c[2]}`);
      await sb.runBlock(oneTransfer(), [logCall('touch')]);
      t.same(gets(), ['Token:t'], 'no host read for the fresh type, one for the other');
      await sb.runBlock(oneTransfer(), [logCall('touch'), logCall('late')]);
      t.same(
        gets(),
        ['Token:t', 'Account:a', 'Account:b', 'Token:t', 'Account:c'],
        'written ids are read from the host (no read cache here); a never-written one is not',
      );
      const err = await rejection(sb.runBlock(oneTransfer(), [logCall('spin')]));
      t.equal(err.code, 'SANDBOX_TIMEOUT');
      await sb.runBlock(oneTransfer(), [logCall('late')]);
      t.same(gets().slice(5), ['Account:c', 'Account:z'], 'the runtime made after the timeout has not seen the earlier writes: it asks');
    },
  );

t.test('forgetKnownIds: after the host wrote what the mappings did not (a test set-up), no id is known absent inside', async (t) => {
  const { sb, calls } = await sandbox(`module.exports.read = async function () { await store.get('Account', 'seeded'); };`, {
    freshEntities: ['Account'],
    readCacheSize: 0,
  });
  const gets = () => calls.filter((c) => c[0] === 'get').length;
  await sb.runBlock(oneTransfer(), [logCall('read')]);
  t.equal(gets(), 0, 'known absent');
  sb.forgetKnownIds();
  await sb.runBlock(oneTransfer(), [logCall('read')]);
  await sb.runBlock(oneTransfer(), [logCall('read')]);
  t.equal(gets(), 2, 'asked of the host in every later block');
});

t.test('a transaction handler gets decoded call args, bigint fields, its logs and receipt()', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.handleTx = async function (tx) {
      const receipt = await tx.receipt();
      await store.set('Tx', tx.hash, {
        id: tx.hash, from: tx.from, to: tx.to, value: tx.value, gas: tx.gas, nonce: tx.nonce, type: tx.type, blockNumber: tx.blockNumber,
        argTo: tx.args.to, amount: tx.args.amount.toBigInt(), amount1: tx.args[1].toString(),
        logs: tx.logs.length, logValue: tx.logs[0].args.value.toBigInt(), logTx: tx.logs[0].transaction === tx,
        status: receipt.status, gasUsed: receipt.gasUsed, receiptLogs: receipt.logs.length, receiptLogBlock: receipt.logs[0].block.number,
      });
    };
    module.exports.handleBlock = async function (block) {
      await store.set('Block', String(block.number), { id: String(block.number), ts: block.timestamp, gasLimit: block.gasLimit, txs: block.transactions.length, logs: block.logs.length, hash: block.hash });
    };
  `);
  const tx = transferTx();
  await sb.runBlock({ block: block(100, [tx]), logs: [transferLog(0, 77n)], logsComplete: true }, [
    { handler: 'handleBlock', kind: 'block' },
    { handler: 'handleTx', kind: 'transaction', index: 0, abi },
  ]);
  t.same(calls.find((c) => c[0] === 'set' && c[1] === 'Block')![3], {
    id: '100',
    ts: 1_700_000_000n,
    gasLimit: 30_000_000n,
    txs: 1,
    logs: 1,
    hash: `0x${'11'.repeat(32)}`,
  });
  t.same(
    calls.find((c) => c[0] === 'getReceipt'),
    ['getReceipt', TX_HASH],
  );
  t.same(calls.find((c) => c[0] === 'set' && c[1] === 'Tx')![3], {
    id: TX_HASH,
    from: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed',
    to: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB',
    value: 10n ** 18n,
    gas: 21000n,
    nonce: 7n,
    type: '0x2',
    blockNumber: 100,
    argTo: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359',
    amount: 500n,
    amount1: '500',
    logs: 1,
    logValue: 77n,
    logTx: true,
    status: true,
    gasUsed: 21000n,
    receiptLogs: 1,
    receiptLogBlock: 100,
  });
  t.equal(TO.length, 42);
  t.equal(TOKEN.length, 42);
});

t.test('globals: logger, api pinned to the block, chainId, createDynamicDatasource, cache', async (t) => {
  const { sb, calls, logs } = await sandbox(`
    module.exports.handle = async function (log) {
      logger.info('value %s at %d', log.args.value.toString(), log.blockNumber);
      logger.warn({ who: log.args.from }, 'with fields');
      const out = await api.call({ to: log.address, data: '0x70a08231' }, 'latest');
      const balance = await api.getBalance(log.address);
      await createDynamicDatasource('Pool', { address: log.args.to });
      await cache.set('k', 1);
      await store.set('G', 'g', { id: 'g', out, balance: balance.toBigInt(), chainId, cached: await cache.get('k'), unsafe: typeof unsafeApi, network: (await api.getNetwork()).chainId });
    };
  `);
  await sb.runBlock(oneTransfer(), [logCall('handle')]);
  t.same(logs, [
    { level: 'info', message: 'value 1000 at 100' },
    { level: 'warn', message: 'with fields', fields: { who: '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed' } },
  ]);
  t.same(
    calls.find((c) => c[0] === 'ethCall'),
    ['ethCall', { to: '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', data: '0x70a08231' }, 100],
  );
  t.same(
    calls.find((c) => c[0] === 'request'),
    ['request', 'eth_getBalance', ['0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB', '0x64']],
  );
  t.same(
    calls.find((c) => c[0] === 'createDynamicDatasource'),
    ['createDynamicDatasource', 'Pool', { address: '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359' }],
  );
  t.same(calls.find((c) => c[0] === 'set')![3], {
    id: 'g',
    out: `0x${'00'.repeat(31)}2a`,
    balance: 16n,
    chainId: '31337',
    cached: 1,
    unsafe: 'undefined',
    network: 31337,
  });
});

t.test("api is each block's own, as SubQuery freezes one per block: one kept from the bundle's top level reads the first block handled", async (t) => {
  // SubQuery's sandbox loads the mapping at its first handler call, so a contract made at the top level with that
  // call's `api` reads that block for good (its Zora, Degen, Merlin and Metis starters do so; test/evm-projects.test.ts)
  const { sb, calls } = await sandbox(`
    const kept = api;
    let held;
    module.exports.handle = async function (log) {
      held ??= api;
      await kept.call({ to: log.address, data: '0x01' });
      await api.call({ to: log.address, data: '0x02' });
      await held.call({ to: log.address, data: '0x03' });
    };
  `);
  for (const height of [100, 101, 105]) await sb.runBlock({ block: block(height), logs: [transferLog(0, 1n)] }, [logCall('handle')]);
  const heights = (data: string) => calls.filter((c) => c[0] === 'ethCall' && (c[1] as { data: string }).data === data).map((c) => c[2]);
  t.same(heights('0x01'), [100, 100, 100], 'the api the bundle kept as it loaded: the first block handled');
  t.same(heights('0x02'), [100, 101, 105], "the global: the block's own");
  t.same(heights('0x03'), [100, 100, 100], 'one a handler kept: the block it was kept at');
});

t.test('only assert, buffer, crypto, events, path, stream, url and util can be required', async (t) => {
  const { sb, calls } = await sandbox(`
    const assert = require('assert');
    const { Buffer } = require('buffer');
    const util = require('util');
    const path = require('node:path');
    const crypto = require('crypto');
    module.exports.handle = async function () {
      assert.strictEqual(1, 1);
      assert.deepStrictEqual({ a: [1, 2n] }, { a: [1, 2n] });
      let threw = false;
      try { assert.equal(1, 2, 'one is not two'); } catch (e) { threw = e.name === 'AssertionError' && e.message === 'one is not two'; }
      await store.set('B', 'b', {
        id: 'b', threw,
        b64: Buffer.from('hello').toString('base64'), hex: Buffer.from([1, 255]).toString('hex'), global: typeof Buffer === typeof globalThis.Buffer,
        fmt: util.format('%s=%d %j', 'a', 42, { x: 1 }), inspect: util.inspect({ a: 1, b: 'x' }),
        join: path.join('/a/b', '../c', 'd.ts'), ext: path.extname('x/y.test.ts'), rel: path.relative('/a/b/c', '/a/d'), base: path.basename('/a/b.ts', '.ts'),
        sha: crypto.createHash('sha256').update('abc').digest('hex'), hmac: crypto.createHmac('sha256', 'k').update(Buffer.from('abc')).digest('base64'),
        rnd: crypto.randomBytes(8).length,
      });
    };
    module.exports.needsFs = async function () { require('fs'); };
  `);
  await sb.runBlock(oneTransfer(), [{ handler: 'handle', kind: 'block' }]);
  t.same(calls[0]![3], {
    id: 'b',
    threw: true,
    b64: 'aGVsbG8=',
    hex: '01ff',
    global: true,
    fmt: 'a=42 {"x":1}',
    inspect: "{ a: 1, b: 'x' }",
    join: '/a/c/d.ts',
    ext: '.ts',
    rel: '../../d',
    base: 'b',
    sha: createHash('sha256').update('abc').digest('hex'),
    hmac: createHmac('sha256', 'k').update('abc').digest('base64'),
    rnd: 8,
  });
  const err = await rejection(sb.runBlock(oneTransfer(), [{ handler: 'needsFs', kind: 'block' }]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.match(err.message, /Handler needsFs failed at block 100: .*Cannot require "fs".*--unsafe/s);

  const atLoad = await rejection(sandbox(`const fs = require('fs'); module.exports.h = async () => {};`));
  t.equal(atLoad.code, 'MODULE_NOT_ALLOWED');
  t.match(atLoad.message, /Cannot require "fs" in a mapping: the sandbox only provides assert, buffer, crypto, events, path, stream, url and util.*--unsafe/s);
});

t.test('--unsafe allows any module, fetch and unsafeApi', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'idx-sandbox-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'x.txt'), 'from disk');
  const { sb, calls } = await sandbox(
    `
    const fs = require('fs');
    module.exports.handle = async function () {
      const latest = await unsafeApi.getBlockNumber();
      await store.set('U', 'u', { id: 'u', text: fs.readFileSync(${JSON.stringify(join(dir, 'x.txt'))}, 'utf8'), fetch: typeof fetch, latest, sha: require('crypto').createHash('sha256').update('abc').digest('hex').length });
    };
  `,
    { unsafe: true },
  );
  await sb.runBlock(oneTransfer(), [{ handler: 'handle', kind: 'block' }]);
  t.same(calls.at(-1)![3], { id: 'u', text: 'from disk', fetch: 'function', latest: 16, sha: 64 });
  t.same(calls[0], ['request', 'eth_blockNumber', []]);
});

t.test('--timeout: an infinite loop and a never-settling await both fail the block with SANDBOX_TIMEOUT, and the sandbox recovers', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.ok = async function (log) { await store.set('Ok', String(log.blockNumber), { id: String(log.blockNumber) }); };
    module.exports.spin = async function () { await store.get('X', 'x'); for (;;) {} };
    module.exports.hang = async function () { await new Promise(() => {}); };
  `,
    { timeoutMs: 300 },
  );
  for (const handler of ['spin', 'hang']) {
    const started = Date.now();
    const err = await rejection(sb.runBlock(oneTransfer(), [logCall('ok'), logCall(handler)]));
    t.equal(err.code, 'SANDBOX_TIMEOUT', handler);
    t.equal(err.handler, handler);
    t.equal(err.height, 100);
    t.match(err.message, new RegExp(`Handler ${handler} did not finish within the --timeout of 300 ms at block 100`));
    t.ok(Date.now() - started < 2000, 'the block is cut off near the timeout');
    calls.length = 0;
    await sb.runBlock({ block: block(101), logs: [transferLog(0, 1n, 101)] }, [logCall('ok')]);
    t.same(calls, [['set', 'Ok', '101', { id: '101' }]], `usable after ${handler}`);
  }
});

t.test('a throwing handler names itself and the block, with a stack in the project’s TypeScript', async (t) => {
  const source = [
    "import { helper } from './helper';", // 1
    '', // 2
    'interface Args { value: bigint }', // 3
    'export async function handleTransfer(log: { args?: Args }): Promise<void> {', // 4
    '  const value: bigint = log.args!.value;', // 5
    '  if (value > 0n) {', // 6
    "    throw new Error('balance went negative');", // 7
    '  }', // 8
    '}', // 9
  ].join('\n');
  const file = '/project/src/mappings/mappingHandlers.ts';
  const { code, map } = transformSync(source.replace("import { helper } from './helper';", '// no imports'), {
    filename: file,
    swcrc: false,
    configFile: false,
    sourceMaps: true,
    module: { type: 'commonjs' },
    jsc: { parser: { syntax: 'typescript' }, target: 'es2022' },
  });
  const { sb } = await sandbox(code, { sourceMap: map });
  const err = await rejection(sb.runBlock(oneTransfer(), [logCall('handleTransfer')]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.equal(err.handler, 'handleTransfer');
  t.equal(err.height, 100);
  t.match(
    err.message,
    /^Handler handleTransfer failed at block 100: balance went negative\n\s+at handleTransfer \(\/project\/src\/mappings\/mappingHandlers\.ts:7:11\)/,
  );
  t.equal(err.location, `${file}:7:11`);

  const nonError = await rejection((await sandbox(`module.exports.h = async () => { throw 'plain string'; };`)).sb.runBlock(oneTransfer(), [logCall('h')]));
  t.match(nonError.message, /Handler h failed at block 100: a non-Error value was thrown: plain string/);

  const missing = await rejection(sb.runBlock(oneTransfer(), [logCall('handleApproval')]));
  t.equal(missing.code, 'HANDLER_NOT_FOUND');
  t.match(missing.message, /exports no function named "handleApproval"/);
  t.equal((await rejection(sb.runBlock(oneTransfer(), [logCall('toString')]))).code, 'HANDLER_NOT_FOUND', 'not a prototype method');
});

t.test('a read the host refuses throws inside the mapping, which may catch it', async (t) => {
  const failingGet = { get: async (entity: string) => Promise.reject(new Error(`no entity ${entity} in schema.graphql`)) };
  for (const unsafe of [false, true]) {
    const fake = createFakeHost();
    const sb = await createSandbox({
      code: `module.exports.h = async () => { await store.get('Nope', 'n'); };
        module.exports.c = async () => { try { await store.get('Nope', 'n'); } catch (e) { console.log('caught: ' + e.message); } };`,
      fileName: FILE,
      prelude,
      unsafe,
      host: { ...fake.host, store: { ...fake.host.store, ...failingGet } },
    });
    t.teardown(() => sb.dispose());
    const err = await rejection(sb.runBlock(oneTransfer(), [logCall('h')]));
    t.equal(err.code, 'HANDLER_FAILED');
    t.match(err.message, /^Handler h failed at block 100: no entity Nope in schema.graphql/);
    await sb.runBlock(oneTransfer(), [logCall('c')]);
    t.same(fake.logs, [{ level: 'info', message: 'caught: no entity Nope in schema.graphql' }], unsafe ? '--unsafe' : 'isolate');
  }
});

t.test('a write the host refuses fails the handler that made it', async (t) => {
  const { sb } = await sandbox(`module.exports.a = async () => {}; module.exports.b = async () => { await store.set('Nope', 'n', { id: 'n' }); };`, {
    host: {
      store: {
        ...createFakeHost().host.store,
        set: async (entity: string) => {
          throw new Error(`unknown entity ${entity}`);
        },
      },
    } as never,
  });
  const err = await rejection(sb.runBlock(oneTransfer(), [logCall('a'), logCall('b')]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.equal(err.handler, 'b');
  t.match(err.message, /Handler b failed at block 100: store.set\("Nope", "n"\) failed: unknown entity Nope/);
});

t.test('the memory limit stops a runaway handler with a clear error, and the sandbox recovers', async (t) => {
  const { sb, calls } = await sandbox(
    `
    const kept = [];
    module.exports.hog = async function () { for (;;) kept.push(new Array(100000).fill(Math.random())); };
    module.exports.ok = async function () { await store.set('Ok', 'o', { id: 'o' }); };
  `,
    { memoryLimitMb: 16, timeoutMs: 20_000 },
  );
  const err = await rejection(sb.runBlock(oneTransfer(), [logCall('hog')]));
  t.equal(err.code, 'SANDBOX_MEMORY_LIMIT');
  t.equal(err.handler, 'hog');
  t.match(err.message, /Handler hog ran out of memory at block 100: the sandbox is limited to 16 MB/);
  await sb.runBlock(oneTransfer(), [logCall('ok')]);
  t.same(calls, [['set', 'Ok', 'o', { id: 'o' }]]);
});

t.test('--query-limit: a read asking for more fails inside the mapping', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.many = async () => { await store.getByField('Account', 'owner', 'x', { limit: 26 }); };
    module.exports.caught = async () => {
      try { await store.getByFields('Account', [['owner', '=', 'x']], { limit: 1000 }); } catch (e) { await store.set('E', 'e', { id: 'e', message: e.message }); }
      await store.getByFields('Account', [['owner', 'in', ['x', 'y']]], { limit: 25, offset: 5, orderBy: 'id', orderDirection: 'DESC' });
    };
  `,
    { queryLimit: 25 },
  );
  const err = await rejection(sb.runBlock(oneTransfer(), [logCall('many')]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.match(err.message, /store.getByField\("Account", …\) asked for limit 26, above the query limit of 25.*--query-limit/);
  await sb.runBlock(oneTransfer(), [logCall('caught')]);
  t.match(calls[0]![3], { message: /limit 1000, above the query limit of 25/ });
  t.same(calls[1], ['getByFields', 'Account', [['owner', 'in', ['x', 'y']]], { limit: 25, offset: 5, orderBy: 'id', orderDirection: 'DESC' }]);
});

t.test('a log the ABI does not describe gets undefined args and a warning', async (t) => {
  const { sb, calls, logs } = await sandbox(`module.exports.h = async (log) => { await store.set('A', 'a', { id: 'a', has: log.args !== undefined }); };`);
  const log = { ...transferLog(0, 1n), topics: [`0x${'99'.repeat(32)}`] };
  await sb.runBlock({ block: block(100), logs: [log] }, [logCall('h')]);
  t.same(calls[0]![3], { id: 'a', has: false });
  t.match(logs[0], { level: 'warn', message: /does not match the data source's ABI/ });
});

t.test('a rollup bundle of several TypeScript files maps errors to the file and line that threw', async (t) => {
  const root = mkdtempSync(join(tmpdir(), 'idx-sandbox-project-'));
  t.teardown(() => rmSync(root, { recursive: true, force: true }));
  mkdirSync(join(root, 'src/mappings'), { recursive: true });
  writeFileSync(join(root, 'src/index.ts'), "export { handleTransfer } from './mappings/mappingHandlers';\n");
  writeFileSync(
    join(root, 'src/mappings/mappingHandlers.ts'),
    [
      "import { checkedBalance } from '../helpers';",
      '',
      'export async function handleTransfer(log: { args: { value: { toBigInt(): bigint } } }): Promise<void> {',
      '  const balance: bigint = checkedBalance(-log.args.value.toBigInt());',
      "  await store.set('Account', 'a', { id: 'a', balance });",
      '}',
      'declare const store: { set(e: string, id: string, d: object): Promise<void> };',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(root, 'src/helpers.ts'),
    [
      'export function checkedBalance(value: bigint): bigint {',
      '  if (value < 0n) {',
      '    throw new RangeError(`negative balance ${value}`);',
      '  }',
      '  return value;',
      '}',
      '',
    ].join('\n'),
  );
  const swc = (createRequire(import.meta.url)('@rollup/plugin-swc') as { swc: (o: object) => Plugin }).swc;
  const bundle = await rollup({
    input: join(root, 'src/index.ts'),
    plugins: [
      { name: 'ts-resolve', resolveId: (id, from) => (from && id.startsWith('.') ? join(from, '..', `${id}.ts`) : null) },
      swc({ swc: { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' } } }),
    ],
  });
  const { output } = await bundle.generate({ format: 'cjs', sourcemap: true, file: join(root, 'dist/index.js') });
  await bundle.close();
  const { sb, calls } = await sandbox(output[0].code, { fileName: join(root, 'dist/index.js'), sourceMap: output[0].map!.toString() });
  const err = await rejection(sb.runBlock(oneTransfer(5n), [logCall('handleTransfer')]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.equal(err.location, `${join(root, 'src/helpers.ts')}:3:11`);
  t.match(
    err.message,
    `Handler handleTransfer failed at block 100: RangeError: negative balance -5\n    at checkedBalance (${join(root, 'src/helpers.ts')}:3:11)\n    at handleTransfer (${join(root, 'src/mappings/mappingHandlers.ts')}:4:`,
  );
  t.same(calls, []);
});

t.test('--unsafe: a never-settling await and a loop before the first await time out too', async (t) => {
  const { sb, calls } = await sandbox(
    `
    module.exports.ok = async function () { await store.set('Ok', 'o', { id: 'o' }); };
    module.exports.hang = async function () { await new Promise(() => {}); };
    module.exports.spin = function () { for (;;) {} };
  `,
    { unsafe: true, timeoutMs: 300 },
  );
  for (const handler of ['hang', 'spin']) {
    const err = await rejection(sb.runBlock(oneTransfer(), [logCall(handler)]));
    t.equal(err.code, 'SANDBOX_TIMEOUT', handler);
    t.equal(err.handler, handler);
    await sb.runBlock(oneTransfer(), [logCall('ok')]);
  }
  t.same(calls.length, 2);
});

t.test('a Date, bigint and bytes written by a mapping reach the host as values of its own realm, in the isolate and with --unsafe', async (t) => {
  for (const unsafe of [false, true]) {
    const { sb, calls } = await sandbox(
      `module.exports.h = async () => { await store.set('D', 'd', { id: 'd', at: new Date(1700000000000), n: 5n, bytes: new Uint8Array([1, 2]) }); };`,
      { unsafe },
    );
    t.teardown(() => sb.dispose());
    await sb.runBlock(oneTransfer(), [logCall('h')]);
    const data = calls.find((c) => c[0] === 'set')![3] as Record<string, unknown>;
    const label = unsafe ? '--unsafe' : 'isolate';
    t.ok(data.at instanceof Date, `${label}: a Date`);
    t.equal((data.at as Date).getTime(), 1700000000000, label);
    t.equal(data.n, 5n, label);
    t.ok(data.bytes instanceof Uint8Array, `${label}: a Uint8Array`);
  }
});

t.test('dates in a mapping stay ordinary dates of the sandbox: made with new, subclassed, stored and read back from the cache', async (t) => {
  const { sb, calls } = await sandbox(`
    class Stamp extends Date {}
    module.exports.h = async (log) => {
      const made = new Date(1700000000000);
      const stamp = new Stamp(1700000000001);
      const now = new Date();
      await store.set('D', 'd', { id: 'd', made, stamp, now });
      const back = await store.get('D', 'd');
      const checks = {
        made: Object.getPrototypeOf(made) === Date.prototype && made.constructor === Date && made instanceof Date,
        stamp: Object.getPrototypeOf(stamp) === Stamp.prototype && stamp instanceof Stamp && stamp instanceof Date,
        now: now.getTime() === Number(log.block.timestamp) * 1000,
        back: [back.made, back.stamp, back.now].every((d) => d instanceof Date && Object.getPrototypeOf(d) === Date.prototype && d !== made),
        times: [back.made.getTime(), back.stamp.getTime(), back.now.getTime() === now.getTime()],
        notDates: !({} instanceof Date) && !(Object.create(null) instanceof Date),
      };
      await store.set('Check', 'c', { id: 'c', checks: JSON.stringify(checks) });
    };
  `);
  t.teardown(() => sb.dispose());
  await sb.runBlock(oneTransfer(), [logCall('h')]);
  const [d, c] = calls.filter((x) => x[0] === 'set').map((x) => x[3] as Record<string, unknown>);
  t.same(JSON.parse(c!.checks as string), { made: true, stamp: true, now: true, back: true, times: [1700000000000, 1700000000001, true], notDates: true });
  t.ok(d!.made instanceof Date && d!.stamp instanceof Date, 'the host gets Dates');
  t.same([(d!.made as Date).getTime(), (d!.stamp as Date).getTime()], [1700000000000, 1700000000001]);
});

t.test(
  "each handler's first reads and writes of an entity type reach the host once, a read the sandbox's cache answers included; a failed block's are told again",
  async (t) => {
    const told: (readonly [string, string, number])[] = [];
    const { sb } = await sandbox(
      `
    module.exports.write = async function () { await store.set('Account', 'a', { id: 'a' }); await store.set('Transfer', 't', { id: 't' }); };
    module.exports.read = async function () {
      const a = await store.get('Account', 'a');
      if (a === undefined) throw new Error('the cached write is seen');
      await store.getByField('Note', 'text', 'x');
      if (globalThis.mode !== undefined) await store.remove('Gone', 'x');
      if (globalThis.mode === 'fail') { globalThis.mode = undefined; throw new Error('fails once'); }
    };
    module.exports.arm = async function () { globalThis.mode = 'fail'; };
    module.exports.heal = async function () { globalThis.mode = 'ok'; };
  `,
      { onAccess: (entries) => void told.push(...entries) },
    );
    await sb.runBlock(oneTransfer(), [logCall('write'), logCall('read')]);
    t.same(told, [
      ['write', 'Account', 2],
      ['write', 'Transfer', 2],
      ['read', 'Account', 1],
      ['read', 'Note', 1],
    ]);
    told.length = 0;
    await sb.runBlock(oneTransfer(), [logCall('write'), logCall('read')]);
    t.same(told, [], 'nothing new: nothing told');
    await sb.runBlock(oneTransfer(), [logCall('arm')]);
    await t.rejects(sb.runBlock(oneTransfer(), [logCall('read')]), /fails once/);
    await sb.runBlock(oneTransfer(), [logCall('write')]);
    t.same(told, [], 'a failed block tells nothing, nor does the next that does not make its notes');
    await sb.runBlock(oneTransfer(), [logCall('heal'), logCall('read')]);
    t.same(told, [['read', 'Gone', 2]], "the failed block's notes were forgotten with it: told when a block that completes makes them");
  },
);

import t from 'tap';
import type { HandlerCall } from '../../domain/chains/ethereum/handler-call.ts';
import type { MappingHost } from '../../domain/mapping/mapping-host.ts';
import { createPreludeCache } from './create-prelude-cache.ts';
import { createSandbox, type SandboxOptions } from './create-sandbox.ts';
import { block, createFakeHost } from './fixtures/fake-host.ts';
import type { SandboxError } from './sandbox-error.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';

exitWhenDone();

// What a mapping can make the host hold is bounded however much it sends: log text, store writes,
// call arguments. And outside --unsafe its clock and randomness are functions of the block.

const prelude = createPreludeCache();
const FILE = '/project/dist/index.js';
const MiB = 1024 * 1024;

async function sandbox(code: string, options: Partial<Omit<SandboxOptions, 'host'>> & { host?: Partial<MappingHost> } = {}) {
  const fake = createFakeHost(options.host);
  const sb = await createSandbox({ code, fileName: FILE, prelude, timeoutMs: 10_000, ...options, host: fake.host });
  t.teardown(() => sb.dispose());
  return { sb, ...fake };
}

const blockCall = (handler: string): HandlerCall => ({ handler, kind: 'block' });
const at = (height: number, hash?: string) => {
  const b = block(height);
  return { block: hash === undefined ? b : { ...b, hash }, logs: [] };
};
const rejection = async (p: Promise<unknown>): Promise<SandboxError> => {
  try {
    await p;
  } catch (err) {
    return err as SandboxError;
  }
  throw new Error('expected a rejection');
};

/** The host's peak resident memory above where it started, sampled while `run` runs. */
async function peakRssGrowth(run: () => Promise<unknown>): Promise<number> {
  global.gc?.();
  const base = process.memoryUsage.rss();
  let peak = base;
  const sample = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
  try {
    await run();
  } finally {
    clearInterval(sample);
  }
  return Math.max(peak, process.memoryUsage.rss()) - base;
}

// 150 lines of 4 MB: 600 MB would cross (and stay in the fake host's list) without the bounds
const FLOOD = `
  const big = 'x'.repeat(4 * 1024 * 1024);
  module.exports.debugFlood = async function () { for (let i = 0; i < 150; i++) logger.debug(big); await store.set('Done', 'd', { id: 'd' }); };
  module.exports.infoFlood = async function () { for (let i = 0; i < 150; i++) logger.info(big, i); await store.set('Done', 'i', { id: 'i' }); };
  module.exports.fieldFlood = async function () { for (let i = 0; i < 150; i++) logger.info({ big }, 'with a big field'); };
`;

t.test('a handler logging 4 MB strings in a loop at a level the node filters out sends nothing to the host', async (t) => {
  const { sb, logs, calls } = await sandbox(FLOOD, { host: { logLevel: 'info' } });
  const growth = await peakRssGrowth(() => sb.runBlock(at(100), [blockCall('debugFlood')]));
  t.same(logs, [], 'no debug line crossed');
  t.same(calls.at(-1), ['set', 'Done', 'd', { id: 'd' }], 'the handler ran to its end');
  t.ok(growth < 150 * MiB, `the host grew by ${Math.round(growth / MiB)} MiB`);
});

t.test('at an enabled level, lines are cut to 64 KiB and a block sends at most 4 MiB of log text, then one warning', async (t) => {
  const { sb, logs, calls } = await sandbox(FLOOD, { host: { logLevel: 'debug' } });
  const growth = await peakRssGrowth(() => sb.runBlock(at(100), [blockCall('infoFlood')]));
  t.same(calls.at(-1), ['set', 'Done', 'i', { id: 'i' }], 'the handler ran to its end');
  t.ok(growth < 150 * MiB, `the host grew by ${Math.round(growth / MiB)} MiB`);
  const info = logs.filter((l) => l.level === 'info');
  const warnings = logs.filter((l) => l.level === 'warn');
  t.ok(info.length > 0 && info.length < 150, `${info.length} lines crossed`);
  const cut = info[0]!.message;
  t.ok(
    cut.startsWith('x'.repeat(65536)) && cut.slice(65536) === '… (4128770 more characters)',
    `the line is cut, saying how much was left out: …${cut.slice(65530)}`,
  );
  const total = info.reduce((n, l) => n + l.message.length, 0);
  t.ok(total <= 4 * MiB, `${total} characters crossed`);
  t.equal(warnings.length, 1, 'one warning for the dropped lines');
  t.match(warnings[0]!.message, /logged more than 4 MiB of text at block 100: its further log lines in this block are dropped/);

  // the budget is per block: the next block logs again
  await sb.runBlock(at(101), [blockCall('infoFlood')]);
  t.ok(logs.filter((l) => l.level === 'info').length > info.length, 'the next block logs again');

  const fields = await sandbox(FLOOD, { host: { logLevel: 'info' } });
  await fields.sb.runBlock(at(100), [blockCall('fieldFlood')]);
  const first = fields.logs[0]!;
  t.equal(first.message, 'with a big field');
  t.ok(String(first.fields?.big).length < 70_000, 'a big field is cut too');
  t.ok(fields.logs.length < 150, 'fields count against the block budget');
});

t.test('the mapping logger follows the node: "silent" drops all, the default sends all levels', async (t) => {
  const code = `module.exports.h = async function () { logger.trace('t'); logger.debug('d'); logger.info('i'); logger.warn('w'); logger.error('e'); console.log('c'); };`;
  const silent = await sandbox(code, { host: { logLevel: 'silent' } });
  await silent.sb.runBlock(at(100), [blockCall('h')]);
  t.same(silent.logs, []);
  const warn = await sandbox(code, { host: { logLevel: 'warn' } });
  await warn.sb.runBlock(at(100), [blockCall('h')]);
  t.same(
    warn.logs.map((l) => l.message),
    ['w', 'e'],
  );
  const all = await sandbox(code);
  await all.sb.runBlock(at(100), [blockCall('h')]);
  t.same(
    all.logs.map((l) => l.message),
    ['t', 'd', 'i', 'w', 'e', 'c'],
  );
});

t.test('store writes are bounded per entity and per block, failing the handler with the limit', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.small = async function () { await store.set('Ok', '1', { id: '1' }); };
    module.exports.huge = async function () { await store.set('Blob', 'b1', { id: 'b1', data: 'x'.repeat(5 * 1024 * 1024) }); };
    module.exports.many = async function () {
      const list = [];
      for (let i = 0; i < 1000000; i++) list.push({ id: String(i) });
      await store.bulkCreate('Row', list);
    };
    module.exports.heavy = async function () {
      const data = 'y'.repeat(3 * 1024 * 1024);
      for (let i = 0; i < 30; i++) await store.set('Page', String(i), { id: String(i), data });
    };
  `);
  const huge = await rejection(sb.runBlock(at(100), [blockCall('small'), blockCall('huge')]));
  t.equal(huge.code, 'HANDLER_FAILED');
  t.equal(huge.handler, 'huge');
  t.match(
    huge.message,
    /^Handler huge failed at block 100: RangeError: store\.set\("Blob", "b1"\): the entity is about 5 MiB, above the sandbox's limit of 4 MiB per entity/,
  );
  t.notOk(
    calls.some((c) => c[0] === 'set' && c[1] === 'Blob'),
    'the oversized entity never reached the host',
  );

  const many = await rejection(sb.runBlock(at(101), [blockCall('many')]));
  t.equal(many.handler, 'many');
  t.match(
    many.message,
    /store\.bulkCreate\("Row", \[1000000 records\]\): this block would write 1000000 entities, above the sandbox's limit of 100000 per block/,
  );
  t.notOk(
    calls.some((c) => c[0] === 'bulkCreate'),
    'none of the records reached the host',
  );

  const heavy = await rejection(sb.runBlock(at(102), [blockCall('heavy')]));
  t.match(heavy.message, /store\.set\("Page", "21"\): this block's store writes would reach about 66 MiB, above the sandbox's limit of 64 MiB per block/);

  // the limits are per block: the sandbox writes again
  await sb.runBlock(at(103), [blockCall('small')]);
  t.same(calls.at(-1), ['set', 'Ok', '1', { id: '1' }]);
});

t.test('the arguments of one host call are bounded (eth_call data, request params)', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.bigCall = async function () { await api.call({ to: '0x' + '11'.repeat(20), data: '0x' + 'ab'.repeat(1024 * 1024) }); };
    module.exports.bigSend = async function () { await api.getBalance('0x' + '1'.repeat(2 * 1024 * 1024)); };
  `);
  const call = await rejection(sb.runBlock(at(100), [blockCall('bigCall')]));
  t.match(
    call.message,
    /^Handler bigCall failed at block 100: RangeError: api\.call: its arguments are about 2 MiB, above the sandbox's limit of 1 MiB per call/,
  );
  const send = await rejection(sb.runBlock(at(101), [blockCall('bigSend')]));
  t.match(send.message, /a request call: its arguments are about 2 MiB, above the sandbox's limit of 1 MiB per call/);
  t.notOk(
    calls.some((c) => c[0] === 'ethCall' || c[0] === 'request'),
    'nothing reached the chain',
  );
});

t.test('ids with a lone surrogate and bad offsets are refused, naming what is wrong', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.lone = async function () { await store.set('A', 'x\\ud800', { id: 'x\\ud800' }); };
    module.exports.loneGet = async function () { await store.get('A', '\\udc00'); };
    module.exports.paired = async function () { await store.set('A', 'x\\ud83d\\ude00', { id: 'x\\ud83d\\ude00' }); };
    module.exports.hugeOffset = async function () { await store.getByField('A', 'f', 1, { offset: 1e300 }); };
    module.exports.negativeOffset = async function () { await store.getByFields('A', [], { offset: -1 }); };
    module.exports.goodOffset = async function () { await store.getByField('A', 'f', 1, { offset: 5 }); };
  `);
  t.match((await rejection(sb.runBlock(at(100), [blockCall('lone')]))).message, /store\.set: the entity id "x\\ud800" holds a lone surrogate/);
  t.match((await rejection(sb.runBlock(at(101), [blockCall('loneGet')]))).message, /store\.get: the entity id "\\udc00" holds a lone surrogate/);
  await sb.runBlock(at(102), [blockCall('paired')]);
  t.same(calls.at(-1), ['set', 'A', 'x😀', { id: 'x😀' }], 'a surrogate pair is an ordinary character');
  t.match(
    (await rejection(sb.runBlock(at(103), [blockCall('hugeOffset')]))).message,
    /store\.getByField\("A", …\): offset must be a non-negative whole number, got 1e\+300/,
  );
  t.match(
    (await rejection(sb.runBlock(at(104), [blockCall('negativeOffset')]))).message,
    /store\.getByFields\("A", …\): offset must be a non-negative whole number, got -1/,
  );
  await sb.runBlock(at(105), [blockCall('goodOffset')]);
  t.same(calls.at(-1), ['getByField', 'A', 'f', 1, { offset: 5, limit: 100 }]);
});

const CLOCK = `
  const atLoad = Date.now();
  module.exports.clock = async function (b) {
    const now = Date.now();
    const made = new Date();
    const text = Date();
    const crypto = require('crypto');
    await store.set('Clock', String(b.number), {
      id: String(b.number), atLoad, now, made: made.getTime(), later: Date.now(), text: text === new Date(now + 2).toString(),
      isDate: made instanceof Date, proto: Object.getPrototypeOf(made) === Date.prototype, ctor: made.constructor === Date, parsed: new Date(5).getTime(),
      random: [Math.random(), Math.random()], uuid: crypto.randomUUID(), bytes: crypto.randomBytes(4).toString('hex'),
      wasm: typeof WebAssembly,
    });
  };
`;

t.test('outside --unsafe, Date, Math.random and crypto randomness are functions of the block', async (t) => {
  const hashA = `0x${'ab'.repeat(32)}`;
  const hashB = `0x${'cd'.repeat(32)}`;
  const one = await sandbox(CLOCK);
  const two = await sandbox(CLOCK);
  await one.sb.runBlock(at(100, hashA), [blockCall('clock')]);
  await two.sb.runBlock(at(100, hashA), [blockCall('clock')]);
  await one.sb.runBlock(at(101, hashB), [blockCall('clock')]);
  const [a, again, b] = [one.calls[0]![3], two.calls[0]![3], one.calls[1]![3]] as Record<string, unknown>[];
  const ms = 1_700_000_000 * 1000;
  t.match(a, { atLoad: 0, now: ms, made: ms + 1, later: ms + 3, text: true, isDate: true, proto: true, ctor: true, parsed: 5, wasm: 'undefined' });
  t.same(again, a, 'two sandboxes running the same block write the same values');
  t.not((a!.random as number[])[0], (a!.random as number[])[1]);
  t.ok((a!.random as number[]).every((r) => r >= 0 && r < 1));
  t.match(a!.uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  t.not(b!.uuid, a!.uuid, 'another block hash, other random values');
  t.notSame(b!.random, a!.random);
  t.equal(b!.now, ms, 'the clock starts at each block’s timestamp');

  const unsafe = await sandbox(CLOCK, { unsafe: true });
  await unsafe.sb.runBlock(at(100, hashA), [blockCall('clock')]);
  const u = unsafe.calls[0]![3] as Record<string, unknown>;
  t.ok(Math.abs((u.now as number) - Date.now()) < 60_000, '--unsafe keeps the real clock');
  t.equal(u.wasm, 'object', '--unsafe keeps WebAssembly');
});

t.test('whatever a handler throws or leaves rejected, the failure names the handler and the block', async (t) => {
  const { sb } = await sandbox(`
    module.exports.plain = async function () { throw 'plain'; };
    module.exports.nothing = async function () { throw undefined; };
    module.exports.badMessage = async function () { throw { message: { toString() { throw 1; } } }; };
    module.exports.trap = async function () { throw new Proxy({}, { get() { throw new Error('trap'); }, has() { throw new Error('trap'); } }); };
    module.exports.unhandled = async function () { Promise.reject('left behind'); };
    module.exports.huge = async function () { throw new Error('e'.repeat(8 * 1024 * 1024)); };
    module.exports.fine = async function () { await store.set('Ok', '1', { id: '1' }); };
  `);
  const cases: [string, RegExp][] = [
    ['plain', /^Handler plain failed at block 100: a non-Error value was thrown: plain$/],
    ['nothing', /^Handler nothing failed at block 101: a non-Error value was thrown: undefined$/],
    ['badMessage', /^Handler badMessage failed at block 102: an object that cannot be described was thrown/],
    ['trap', /^Handler trap failed at block 103: an object that cannot be described was thrown/],
    ['unhandled', /^Handler unhandled failed at block 104: a non-Error value was thrown: 'left behind'$/],
  ];
  let height = 100;
  for (const [handler, message] of cases) {
    const err = await rejection(sb.runBlock(at(height++), [blockCall(handler)]));
    t.equal(err.code, 'HANDLER_FAILED', handler);
    t.equal(err.handler, handler);
    t.match(err.message, message);
  }
  const huge = await rejection(sb.runBlock(at(height++), [blockCall('huge')]));
  t.ok(huge.message.length < 70_000 && huge.message.includes('… (8323072 more characters)'), 'a huge error message is cut like a log line');
  await sb.runBlock(at(height), [blockCall('fine')]);
  t.pass('the sandbox runs the next block');
});

t.test('a write the host refuses fails the block under the handler that made it, even when a later handler catches it', async (t) => {
  const fake = createFakeHost();
  const set = fake.host.store.set;
  fake.host.store.set = async (entity, id, data) => {
    if (entity === 'Bad') throw new Error('Bad "b": count: expected a 32-bit integer, got "x"');
    return set(entity, id, data);
  };
  const sb = await createSandbox({
    code: `
      module.exports.writer = async function () { await store.set('Bad', 'b', { id: 'b', count: 'x' }); };
      module.exports.reader = async function () { try { await store.get('Other', '1'); } catch (e) { /* swallowed */ } await store.set('Ok', '1', { id: '1' }); };
    `,
    fileName: FILE,
    prelude,
    host: fake.host,
  });
  t.teardown(() => sb.dispose());
  const err = await rejection(sb.runBlock(at(100), [blockCall('writer'), blockCall('reader')]));
  t.equal(err.code, 'HANDLER_FAILED');
  t.equal(err.handler, 'writer');
  t.equal(err.message, 'Handler writer failed at block 100: store.set("Bad", "b") failed: Bad "b": count: expected a 32-bit integer, got "x"');
  t.notOk(
    fake.calls.some((c) => c[0] === 'set' && c[1] === 'Ok'),
    'the later handler’s writes were not applied',
  );
});

t.test('pending timers are bounded: each is a timer in the host', async (t) => {
  const { sb, calls } = await sandbox(`
    module.exports.many = async function () { for (let i = 0; i < 20000; i++) setTimeout(() => {}, 1e6); };
    module.exports.cleared = async function () {
      for (let i = 0; i < 20000; i++) clearTimeout(setTimeout(() => {}, 1e6));
      await new Promise((r) => setTimeout(r, 1));
      await store.set('Ok', '1', { id: '1' });
    };
  `);
  const err = await rejection(sb.runBlock(at(100), [blockCall('many')]));
  t.match(err.message, /^Handler many failed at block 100: RangeError: 10000 timers are already pending, the sandbox's limit/);
  await sb.runBlock(at(101), [blockCall('cleared')]);
  t.same(calls.at(-1), ['set', 'Ok', '1', { id: '1' }], 'cleared timers do not count; the next block starts with none pending');
});

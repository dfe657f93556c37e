import { fileURLToPath, format, parse, pathToFileURL, resolve, URL as NodeURL } from 'node:url';
import t from 'tap';
import type { HandlerCall } from '../../domain/chains/ethereum/handler-call.ts';
import { SANDBOX_MODULES, SANDBOX_MODULES_TEXT } from '../../domain/mapping/sandbox-modules.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';
import { createPreludeCache } from './create-prelude-cache.ts';
import { createSandbox, type SandboxOptions } from './create-sandbox.ts';
import { block, createFakeHost } from './fixtures/fake-host.ts';
import type { SandboxError } from './sandbox-error.ts';

// What SubQuery's sandbox adds to the first five modules: `url`, `stream` (and the `events` they
// use), the URL globals and timers, in the isolate and with --unsafe.

exitWhenDone();

const prelude = createPreludeCache();
const FILE = '/project/dist/index.js';
const blockCall = (handler: string): HandlerCall => ({ handler, kind: 'block' });
const at = (height: number) => ({ block: block(height), logs: [] });

async function sandbox(code: string, options: Partial<SandboxOptions> = {}) {
  const fake = createFakeHost(options.host);
  const sb = await createSandbox({ code, fileName: FILE, prelude, timeoutMs: 2000, ...options, host: fake.host });
  t.teardown(() => sb.dispose());
  return { sb, ...fake };
}

const rejection = (p: Promise<unknown>) =>
  p.then(
    () => ({ code: 'resolved', message: '' }) as unknown as SandboxError,
    (err: unknown) => err as SandboxError,
  );

const URL_MAPPING = `
  const url = require('url');
  module.exports.handle = async function () {
    const u = new URL('https://user:pw@Example.COM:8080/a/../b/c?x=1&y=two words#frag');
    u.searchParams.append('z', 'é&=');
    u.searchParams.delete('x');
    const p = new URLSearchParams({ b: '2', a: '1 +' });
    p.sort();
    const rel = new url.URL('../d?q', u);
    const emptied = new URL('http://h/?only=1');
    emptied.searchParams.delete('only');
    let invalid = null;
    try { new URL('not a url'); } catch (e) { invalid = [e.name, e.code]; }
    let notFile = null;
    try { url.fileURLToPath('http://x/y'); } catch (e) { notFile = e.code; }
    const legacy = url.parse('http://u:p@host.com:81/p/a/t/h?query=string#hash', true);
    await store.set('U', 'u', {
      id: 'u',
      href: u.href, host: u.host, hostname: u.hostname, port: u.port, origin: u.origin, path: u.pathname, search: u.search, z: u.searchParams.get('z'),
      sorted: p.toString(), rel: rel.href, emptied: emptied.href, invalid, canParse: [URL.canParse('x:'), URL.canParse('/rel')],
      json: JSON.stringify({ u: new URL('http://a.b/') }),
      legacyHost: legacy.host, legacyQuery: legacy.query.query, legacyPath: legacy.path, formatted: url.format(legacy),
      formatObj: url.format({ protocol: 'https', hostname: 'x.org', pathname: '/a b', query: { k: 'v w' } }),
      resolved: url.resolve('http://a/b/c/d;p?q', '../g'),
      toPath: url.fileURLToPath('file:///tmp/a%20b/c%23d'), toUrl: url.pathToFileURL('/tmp/a b/#c?').href, dirUrl: url.pathToFileURL('/tmp/dir/').href,
      relUrl: url.pathToFileURL('x/y').href, notFile, same: url.URL === URL,
    });
  };
`;

function expectedUrl() {
  const u = new NodeURL('https://user:pw@Example.COM:8080/a/../b/c?x=1&y=two words#frag');
  u.searchParams.append('z', 'é&=');
  u.searchParams.delete('x');
  const p = new URLSearchParams({ b: '2', a: '1 +' });
  p.sort();
  const emptied = new NodeURL('http://h/?only=1');
  emptied.searchParams.delete('only');
  const legacy = parse('http://u:p@host.com:81/p/a/t/h?query=string#hash', true);
  return {
    id: 'u',
    href: u.href,
    host: u.host,
    hostname: u.hostname,
    port: u.port,
    origin: u.origin,
    path: u.pathname,
    search: u.search,
    z: 'é&=',
    sorted: p.toString(),
    rel: new NodeURL('../d?q', u).href,
    emptied: emptied.href,
    invalid: ['TypeError', 'ERR_INVALID_URL'],
    canParse: [true, false],
    json: '{"u":"http://a.b/"}',
    legacyHost: 'host.com:81',
    legacyQuery: 'string',
    legacyPath: '/p/a/t/h?query=string',
    formatted: format(legacy),
    formatObj: format({ protocol: 'https', hostname: 'x.org', pathname: '/a b', query: { k: 'v w' } }),
    resolved: resolve('http://a/b/c/d;p?q', '../g'),
    toPath: fileURLToPath('file:///tmp/a%20b/c%23d'),
    toUrl: pathToFileURL('/tmp/a b/#c?').href,
    dirUrl: pathToFileURL('/tmp/dir/').href,
    relUrl: 'file:///x/y',
    notFile: 'ERR_INVALID_URL_SCHEME',
    same: true,
  };
}

t.test("require('url') and the URL globals answer as Node's", async (t) => {
  const { sb, calls } = await sandbox(URL_MAPPING);
  await sb.runBlock(at(100), [blockCall('handle')]);
  t.same(calls[0]![3], expectedUrl());
});

t.test("--unsafe: require('url') is Node's own, with the same answers", async (t) => {
  const { sb, calls } = await sandbox(URL_MAPPING, { unsafe: true });
  await sb.runBlock(at(100), [blockCall('handle')]);
  // Node's pathToFileURL resolves a relative path against the process's directory, not '/'
  t.same(calls[0]![3], { ...expectedUrl(), relUrl: pathToFileURL('x/y').href });
});

const STREAM_MAPPING = `
  const { Readable, Writable, Transform, PassThrough, Duplex, pipeline, finished } = require('stream');
  const Stream = require('stream');
  const { once, EventEmitter } = require('events');
  module.exports.handle = async function () {
    const upper = new Transform({ transform(chunk, _enc, cb) { cb(null, chunk.toString().toUpperCase()); } });
    const parts = [];
    const sink = new Writable({ write(chunk, _enc, cb) { parts.push(chunk.toString()); cb(); } });
    const source = Readable.from(['a', 'b', 'c'], { objectMode: false });
    await new Promise((resolve, reject) => pipeline(source, upper, new PassThrough(), sink, (err) => (err ? reject(err) : resolve())));

    const objects = [];
    await require('stream/promises').pipeline(
      Readable.from([1, 2, 3]),
      new Transform({ objectMode: true, transform(n, _e, cb) { cb(null, n * 10); } }),
      new Writable({ objectMode: true, write(n, _e, cb) { objects.push(n); cb(); } }),
    );

    const piped = [];
    const r = new Readable({ read() {} });
    r.pipe(new Writable({ write(c, _e, cb) { piped.push(c.toString()); cb(); } }));
    r.push('x'); r.push('y'); r.push(null);
    await new Promise((res) => finished(r, res));

    const iterated = [];
    for await (const chunk of Readable.from(['p', 'q'])) iterated.push(chunk);

    let failed = null;
    const broken = new Transform({ transform(_c, _e, cb) { cb(new Error('bad chunk')); } });
    await new Promise((res) => pipeline(Readable.from(['z']), broken, new PassThrough(), (err) => { failed = err && err.message; res(); }));

    const emitter = new EventEmitter();
    setTimeout(() => emitter.emit('ready', 42), 1);
    const [ready] = await once(emitter, 'ready');

    await store.set('S', 's', {
      id: 's', joined: parts.join(''), objects, piped: piped.join(''), iterated, failed, ready,
      kinds: [new Duplex() instanceof Stream, new Writable() instanceof Stream, new Readable() instanceof EventEmitter, typeof Stream.Readable],
    });
  };
`;

const STREAM_EXPECTED = {
  id: 's',
  joined: 'ABC',
  objects: [10, 20, 30],
  piped: 'xy',
  iterated: ['p', 'q'],
  failed: 'bad chunk',
  ready: 42,
  kinds: [true, true, true, 'function'],
};

t.test("require('stream'): data piped through a Transform, pipeline, finished, Readable.from, events", async (t) => {
  const { sb, calls } = await sandbox(STREAM_MAPPING);
  await sb.runBlock(at(100), [blockCall('handle')]);
  t.same(calls[0]![3], STREAM_EXPECTED);
});

t.test("--unsafe: require('stream') is Node's, the same mapping gives the same answers", async (t) => {
  const { sb, calls } = await sandbox(STREAM_MAPPING, { unsafe: true });
  await sb.runBlock(at(100), [blockCall('handle')]);
  t.same(calls[0]![3], STREAM_EXPECTED);
});

const TIMERS_MAPPING = `
  let fromLastBlock = 0;
  module.exports.wait = async function (b) {
    const started = Date.now();
    await new Promise((r) => setTimeout(r, 10));
    const waited = Date.now() - started;
    let ticks = 0;
    await new Promise((r) => { const h = setInterval(() => { if (++ticks === 3) { clearInterval(h); r(); } }, 1); });
    let cancelled = true;
    const c = setTimeout(() => { cancelled = false; }, 5);
    clearTimeout(c);
    const order = [];
    await new Promise((r) => { setImmediate(() => order.push('immediate')); setTimeout((a, b2) => { order.push(a + b2); r(); }, 20, 'time', 'out'); });
    await new Promise((r) => setTimeout(r, 10));
    // set now, fires only if the block were still running in 50 ms
    setTimeout(() => { fromLastBlock++; store.set('Late', String(b.number), { id: String(b.number) }); }, 50);
    await store.set('T', String(b.number), { id: String(b.number), waited: waited >= 9, ticks, cancelled, order, fromLastBlock });
  };
  module.exports.sleepy = async function () { await new Promise((r) => setTimeout(r, 5000)); };
  module.exports.throwsLater = async function () { await new Promise((r) => setTimeout(() => { throw new Error('boom in a timer'); }, 5)); };
`;

for (const unsafe of [false, true]) {
  const mode = unsafe ? '--unsafe' : 'isolate';
  t.test(`${mode}: timers in handlers, cancelled when the block ends, bounded by --timeout`, async (t) => {
    const { sb, calls } = await sandbox(TIMERS_MAPPING, { timeoutMs: 400, unsafe });
    const began = Date.now();
    await sb.runBlock(at(100), [blockCall('wait')]);
    t.ok(Date.now() - began >= 35, 'the timers waited (10 + 20 + 10 ms)');
    // outside --unsafe the mapping's clock is the block's (1 ms per read), so it sees no wait
    t.same(calls.at(-1), ['set', 'T', '100', { id: '100', waited: unsafe, ticks: 3, cancelled: true, order: ['immediate', 'timeout'], fromLastBlock: 0 }]);
    await new Promise((r) => setTimeout(r, 80));
    await sb.runBlock(at(101), [blockCall('wait')]);
    t.same(
      calls.filter((c) => c[1] === 'Late' || c[1] === 'T').map((c) => [c[1], (c[3] as { fromLastBlock?: number }).fromLastBlock]),
      [
        ['T', 0],
        ['T', 0],
      ],
      'a timer pending when its block ended never fires',
    );

    const started = Date.now();
    const slow = await rejection(sb.runBlock(at(102), [blockCall('sleepy')]));
    t.equal(slow.code, 'SANDBOX_TIMEOUT');
    t.match(slow.message, /Handler sleepy did not finish within the --timeout of 400 ms at block 102/);
    t.ok(Date.now() - started < 2000, 'cut off near the timeout, not after the timer');

    const thrown = await rejection(sb.runBlock(at(103), [blockCall('throwsLater')]));
    t.equal(thrown.code, 'HANDLER_FAILED');
    t.match(thrown.message, /Handler throwsLater failed at block 103: boom in a timer/);

    calls.length = 0;
    await sb.runBlock(at(104), [blockCall('wait')]);
    t.match(calls.at(-1), ['set', 'T', '104', { ticks: 3 }], 'the sandbox recovers after both');
  });
}

t.test('every module of the shared list is provided, also as node:, and any other is refused naming the list', async (t) => {
  const { sb } = await sandbox(
    `${JSON.stringify(SANDBOX_MODULES)}.forEach((m) => { if (require(m) == null || require('node:' + m) !== require(m)) throw new Error(m); });\nexports.handle = () => {};`,
  );
  t.ok(sb.handlers.includes('handle'), `${SANDBOX_MODULES.join(', ')} load`);
  const err = await rejection(sandbox(`require('fs');\nexports.handle = () => {};`));
  t.equal(err.code, 'MODULE_NOT_ALLOWED');
  t.match(err.message, `the sandbox only provides ${SANDBOX_MODULES_TEXT}`);
});

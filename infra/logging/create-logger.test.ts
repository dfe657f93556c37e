import { hostname } from 'node:os';
import t from 'tap';
import { createLogger, debugScopes, type CreateLoggerOptions } from './create-logger.ts';

const capture = (opts: Omit<CreateLoggerOptions, 'write'>) => {
  const lines: string[] = [];
  return { lines, logger: createLogger({ ...opts, write: (l) => lines.push(l) }) };
};

t.test('colored lines read <timestamp> <<category>> <LEVEL> <message>', async (t) => {
  const { lines, logger } = capture({ level: 'info', format: 'colored', colors: false });
  logger.child('fetch').info('fetch block [1,100], total 100 blocks');
  logger.child('store').warn('slow flush', { ms: 812, height: 5n });
  logger.debug('hidden at info');
  t.equal(lines.length, 2);
  t.match(lines[0], /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z <fetch> INFO fetch block \[1,100\], total 100 blocks\n$/);
  t.match(lines[1], /^\S+ <store> WARN slow flush \{"ms":812,"height":"5"\}\n$/);
});

t.test('a named event keeps its fields to JSON lines: the colored line is its message', async (t) => {
  const colored = capture({ level: 'info', format: 'colored', colors: false });
  colored.logger.child('indexer').info('resuming after block 7', { event: 'resume', height: 7 });
  t.match(colored.lines[0], /<indexer> INFO resuming after block 7\n$/);
  const json = capture({ level: 'info', format: 'json' });
  json.logger.child('indexer').info('resuming after block 7', { event: 'resume', height: 7 });
  t.match(JSON.parse(json.lines[0]!), { message: 'resuming after block 7', event: 'resume', height: 7 });
});

t.test('json lines carry level, timestamp, pid, hostname, category, message', async (t) => {
  const { lines, logger } = capture({ level: 'debug', format: 'json' });
  logger.child('rpc').debug('retrying', { attempt: 2 });
  const rec = JSON.parse(lines[0]!);
  t.match(rec, { level: 'debug', pid: process.pid, hostname: hostname(), category: 'rpc', message: 'retrying', attempt: 2 });
  t.ok(!Number.isNaN(Date.parse(rec.timestamp)));
});

t.test('--log-level=silent prints nothing, not even errors or profiler lines', async (t) => {
  const { lines, logger } = capture({ level: 'silent', format: 'colored', profiler: true, debug: '*' });
  logger.fatal('x');
  logger.child('fetch').debug('y');
  logger.profile('Indexer', 'processBlock', 3);
  t.same(lines, []);
});

t.test('--debug scopes override the level for their categories', async (t) => {
  const { lines, logger } = capture({ level: 'warn', format: 'colored', colors: false, debug: '*,-sql' });
  logger.child('sql').debug('select 1');
  logger.child('fetch').debug('fetching');
  logger.child('fetch').trace('too fine');
  t.equal(lines.length, 1);
  t.match(lines[0], /<fetch> DEBUG fetching/);
  t.equal(logger.child('sql').isDebugEnabled(), false);

  const only = debugScopes('store,rpc');
  t.same(['store', 'rpc', 'fetch'].map(only), [true, true, false]);
  const except = debugScopes('-sql');
  t.same(['store', 'sql'].map(except), [true, false]);
  t.equal(debugScopes(undefined)('store'), false);
});

t.test('profiler lines only with --profiler, whatever the level', async (t) => {
  const on = capture({ level: 'error', format: 'colored', colors: false, profiler: true });
  on.logger.profile('StoreService', 'flush', 12.4);
  t.match(on.lines[0], /^\S+ <profiler> INFO StoreService, flush, 12 ms\n$/);
  const off = capture({ level: 'info', format: 'colored', colors: false });
  off.logger.profile('StoreService', 'flush', 12);
  t.same(off.lines, []);
});

t.test('colors on a terminal', async (t) => {
  const { lines, logger } = capture({ level: 'info', format: 'colored', colors: true });
  logger.error('boom');
  t.match(lines[0], /\u001b\[31mERROR\u001b\[0m boom/);
});

t.test('level() is what a category prints, so a mapping can drop lines that would be filtered out', async (t) => {
  t.equal(capture({ level: 'warn', format: 'json' }).logger.child('mapping').level(), 'warn');
  t.equal(capture({ level: 'warn', format: 'json', debug: 'mapping' }).logger.child('mapping').level(), 'debug');
  t.equal(capture({ level: 'warn', format: 'json', debug: '*,-mapping' }).logger.child('mapping').level(), 'warn');
  t.equal(capture({ level: 'silent', format: 'json', debug: '*' }).logger.child('mapping').level(), 'silent');
  t.equal(capture({ level: 'trace', format: 'json' }).logger.child('mapping').level(), 'trace');
});

t.test('an endpoint URL is redacted wherever a line quotes it: message, fields, an error and its cause, in both formats', async (t) => {
  const url = 'https://user:hunter2@rpc.example:8443/v3/9aa3d95b3bc440fa88ea12eaa4456161?apikey=s3cret';
  const cause = new TypeError(`Request cannot be constructed from a URL that includes credentials: ${url}`);
  for (const format of ['json', 'colored'] as const) {
    const { lines, logger } = capture({ level: 'trace', format, colors: false });
    logger.child('fetch').trace(`asking ${url}`);
    logger.warn(`fetch failed (${url}: ${cause.message})`, { endpoint: url });
    logger.error('gave up', { err: new Error('no endpoint answered', { cause }) });
    const text = lines.join('');
    t.equal(lines.length, 3, format);
    t.notMatch(text, /hunter2|9aa3d95b3bc440fa88ea12eaa4456161|s3cret/, `${format}: no secret`);
    t.match(text, 'https://***@rpc.example:8443/v3/***?apikey=***', `${format}: scheme, host and port stay`);
    if (format === 'json') for (const line of lines) t.doesNotThrow(() => JSON.parse(line), 'still JSON');
  }
});

t.test('a line for an output that is gone is dropped; other write errors still surface', async (t) => {
  const gone = Object.assign(new Error('write EPIPE'), { code: 'EPIPE' });
  const logger = createLogger({
    level: 'info',
    format: 'json',
    write: () => {
      throw gone;
    },
  });
  t.doesNotThrow(() => logger.info('nobody reads this'));
  const full = Object.assign(new Error('no space left on device'), { code: 'ENOSPC' });
  const failing = createLogger({
    level: 'info',
    format: 'json',
    write: () => {
      throw full;
    },
  });
  t.throws(() => failing.info('x'), { code: 'ENOSPC' });
});

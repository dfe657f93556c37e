import { join } from 'node:path';
import t from 'tap';
import type { ValidationError } from '../../../domain/errors.ts';
import { UsageError } from '../../../infra/cli/usage-error.ts';
import { networkEndpoints, parseNodeArgs, type NodeCommand, type ParseNodeArgsContext } from './node-options.ts';

const ctx = (over: Partial<ParseNodeArgsContext> = {}): ParseNodeArgsContext & { out: string[] } => {
  const out: string[] = [];
  return { program: 'idx-node', version: '1.2.3', variant: 'ethereum', cores: 2, write: (s) => out.push(s), out, ...over };
};
const run = (argv: string[], c = ctx()) => {
  const r = parseNodeArgs(argv, c);
  if (r.command === 'exit') throw new Error('unexpected exit');
  return r;
};
const usage = (argv: string[], c = ctx()): string => {
  try {
    parseNodeArgs(argv, c);
  } catch (e) {
    if (e instanceof UsageError) return e.message;
    throw e;
  }
  throw new Error(`expected ${argv.join(' ')} to be refused`);
};

t.test('defaults are those documented in docs/usage.md', async (t) => {
  const { command, options } = run(['-f', 'proj']);
  t.equal(command, 'run');
  t.match(options, {
    idx: 'proj',
    allowSchemaMigration: false,
    changesIndex: false,
    batchSize: undefined,
    blockConfirmations: 200,
    disableHistorical: false,
    dictionaryTimeout: 30,
    logLevel: 'info',
    multiChain: false,
    networkEndpoint: [],
    outputFmt: 'colored',
    port: 3000,
    profiler: false,
    proofOfIndex: false,
    queryLimit: 100,
    scaleBatchSize: false,
    storeCacheThreshold: 1000,
    storeCacheUpperLimit: 20000,
    storeGetCacheSize: 500,
    storeCacheAsync: true,
    storeFlushInterval: 5,
    subscription: false,
    timeout: 10000,
    timestampField: true,
    unfinalizedBlocks: false,
    unsafe: false,
    verifyReceipts: false,
    workers: 0,
  });
});

t.test('every option parses to its type; booleans take =true/=false', async (t) => {
  const { options } = run([
    '--idx=p',
    '--idx-name',
    'n',
    '--allow-schema-migration',
    '--batch-size=7',
    '--block-confirmations',
    '12',
    '--csv-out-dir',
    'csv',
    '--db-schema',
    's',
    '--debug',
    'sql,-rpc',
    '--disable-historical=true',
    '--dictionary-resolver',
    'https://r.example',
    '--dictionary-timeout',
    '9',
    '--log-level',
    'silent',
    '-d',
    'http://d.example',
    '--network-endpoint',
    'http://a:1',
    '--network-endpoint=ws://b:2',
    '--output-fmt=json',
    '-p',
    '4000',
    '--pg-ca',
    'ca.pem',
    '--pg-cert',
    'c.pem',
    '--pg-key',
    'k.key',
    '--profiler',
    '--proof-of-index',
    '--query-limit',
    '50',
    '--scale-batch-size',
    '--store-cache-async=false',
    '--store-cache-threshold',
    '10',
    '--store-get-cache-size',
    '20',
    '--store-flush-interval',
    '2',
    '--subscription',
    '--timeout',
    '500',
    '--timestamp-field=false',
    '--unsafe',
    '--verify-receipts',
    '-w',
    '1',
  ]);
  t.match(options, {
    idx: 'p',
    idxName: 'n',
    allowSchemaMigration: true,
    batchSize: 7,
    blockConfirmations: 12,
    csvOutDir: 'csv',
    dbSchema: 's',
    debug: 'sql,-rpc',
    disableHistorical: true,
    dictionaryResolver: 'https://r.example',
    dictionaryTimeout: 9,
    logLevel: 'silent',
    networkDictionary: 'http://d.example',
    networkEndpoint: ['http://a:1', 'ws://b:2'],
    outputFmt: 'json',
    port: 4000,
    pgCa: 'ca.pem',
    pgCert: 'c.pem',
    pgKey: 'k.key',
    profiler: true,
    proofOfIndex: true,
    queryLimit: 50,
    scaleBatchSize: true,
    storeCacheAsync: false,
    storeCacheThreshold: 10,
    storeGetCacheSize: 20,
    storeFlushInterval: 2,
    subscription: true,
    timeout: 500,
    timestampField: false,
    verifyReceipts: true,
    unsafe: true,
    workers: 1,
  });
  t.equal(run(['--debug']).options.debug, '*', '--debug alone means every scope');
});

t.test('bad values and unknown options are refused, naming them', async (t) => {
  t.match(usage(['--batch-size=0']), /--batch-size <n>' argument '0' is invalid\. expected a positive integer/);
  t.match(usage(['--output-fmt=xml']), /--output-fmt <format>' argument 'xml' is invalid\. Allowed choices are json, colored/);
  t.match(usage(['--log-level', 'loud']), /Allowed choices are fatal, error, warn, info, debug, trace, silent/);
  t.match(usage(['--unsafe=yes']), /--unsafe \[bool\]' argument 'yes' is invalid\. expected true or false/);
  t.match(usage(['--network-endpoint', 'localhost:8545']), /--network-endpoint <url>' argument 'localhost:8545' is invalid/);
  t.match(usage(['--bogus']), /unknown option '--bogus'/);
  t.match(usage(['--bogus']), /Run idx-node --help for the options/);
  t.match(usage(['--workers=-1']), /-w, --workers <n>/);
  t.match(usage(['--timeout', '1.5']), /--timeout <ms>' argument '1.5' is invalid/);
});

t.test('rules between options', async (t) => {
  t.match(usage(['--unfinalized-blocks', '--disable-historical']), /--unfinalized-blocks needs historical tracking/);
  t.match(usage(['--changes-index', '--disable-historical']), /--changes-index needs historical tracking/);
  t.match(usage(['--multi-chain']), /--multi-chain needs --db-schema/);
  t.match(usage(['--pg-cert', 'c.pem']), /--pg-cert and --pg-key go together/);
  t.match(run(['--block-confirmations', '5'], ctx({ variant: 'base' })).warnings, [/applies only to idx-node-ethereum/]);
  t.same(run(['--block-confirmations', '5']).warnings, []);
  t.match(run(['--store-cache-threshold', '5']).warnings, [/only with --store-cache-async=false/]);
  t.same(run(['--store-cache-threshold', '5', '--store-cache-async=false']).warnings, []);
  t.match(run(['--store-cache-upper-limit', '5', '--store-cache-async=false']).warnings, [/--store-cache-upper-limit applies only with --store-cache-async/]);
  t.same(run(['--store-cache-upper-limit', '5']).warnings, []);
  t.equal(run(['--store-cache-upper-limit', '5']).options.storeCacheUpperLimit, 5);
  const many = run(['--workers', '8']);
  t.equal(many.options.workers, 2, 'workers are limited by CPU cores');
  t.match(many.warnings, [/more than the 2 CPU cores/]);
});

t.test('blue/green: --promote on a run, and the promote subcommand', async (t) => {
  t.equal(run(['-f', 'proj', '--db-schema', 'app-v2', '--promote', 'app']).options.promote, 'app');
  const r = run(['promote', '--name', 'app', '--db-schema', 'app-v2']) as Extract<NodeCommand, { command: 'promote' }>;
  t.match(r, { command: 'promote', name: 'app', options: { dbSchema: 'app-v2' } });
  t.equal((run(['promote', '--name', 'app', '-f', 'proj']) as Extract<NodeCommand, { command: 'promote' }>).options.idx, 'proj', "or the project's own schema");
  t.match(usage(['promote', '--db-schema', 'x']), /required option '--name <name>' not specified/);
  t.match(usage(['promote', '--name', 'app']), /promote needs the schema to serve: --db-schema <name>/);
  t.match(usage(['promote', '--name', 'x'.repeat(64), '--db-schema', 's']), /has 64 bytes/);
  t.match(usage(['force-clean', '-f', 'p', '--promote', 'app']), /--promote applies to indexing; to promote now use idx-node promote --name app/);
  t.match(usage(['-f', 'p', '--db-schema', 's', '--multi-chain', '--promote', 'app']), /--promote: a --multi-chain schema is caught up chain by chain/);
});

t.test('--reuse: a schema name, on a run, not with what a partial reindex cannot give', async (t) => {
  t.equal(run(['-f', 'proj', '--db-schema', 'app-v2', '--reuse', 'app']).options.reuse, 'app');
  t.match(usage(['-f', 'p', '--reuse', 'x'.repeat(64)]), /has 64 bytes/);
  t.match(usage(['force-clean', '-f', 'p', '--reuse', 'app']), /--reuse applies to indexing/);
  t.match(usage(['-f', 'p', '--db-schema', 'app', '--reuse', 'app']), /--reuse app: the schema reused must be another than --db-schema/);
  t.match(usage(['-f', 'p', '--db-schema', 's', '--multi-chain', '--reuse', 'app']), /--reuse: a --multi-chain schema cannot be reused/);
  t.match(usage(['-f', 'p', '--disable-historical', '--reuse', 'app']), /--reuse copies rows by height and needs historical tracking/);
  t.match(usage(['-f', 'p', '--proof-of-index', '--reuse', 'app']), /--reuse: the proof of indexing covers every handler's writes/);
  t.match(usage(['-f', 'p', '--csv-out-dir', 'csv', '--reuse', 'app']), /--reuse: the CSV files would lack the copied rows/);
});

t.test('subcommands force-clean and reindex', async (t) => {
  t.match(run(['force-clean', '-f', 'proj']), { command: 'force-clean', options: { idx: 'proj' } });
  const r = run(['reindex', '-f', 'proj', '--targetHeight=42']) as Extract<NodeCommand, { command: 'reindex' }>;
  t.equal(r.command, 'reindex');
  t.equal(r.targetHeight, 42);
  t.match(usage(['reindex', '-f', 'proj']), /required option '--targetHeight <n>' not specified/);
  t.match(usage(['reindex', '--targetHeight=3']), /reindex needs the project: -f, --idx <path>/);
  t.match(usage(['force-clean']), /force-clean needs the project/);
  t.match(usage(['reindex', '-f', 'p', '--targetHeight=3', '--disable-historical']), /reindex needs historical tracking/);
});

t.test("subcommand test: SubQuery's subql-node test, with --test-filter and the node's options", async (t) => {
  t.match(run(['test', '-f', 'proj', '--test-filter', 'transfer', '--db-schema', 's']), {
    command: 'test',
    testFilter: 'transfer',
    options: { idx: 'proj', dbSchema: 's' },
  });
  t.notOk('testFilter' in run(['test', '-f', 'proj']), 'no filter: every test file');
  t.match(usage(['test']), /test needs the project/);
  const h = ctx();
  t.same(parseNodeArgs(['test', '--help'], h), { command: 'exit', code: 0 });
  t.match(h.out.join(''), '--test-filter');
  t.match(h.out.join(''), '--update-snapshots');
});

t.test('subcommand test: --update-snapshots, a flag of test alone', async (t) => {
  t.match(run(['test', '-f', 'proj', '--update-snapshots']), { command: 'test', updateSnapshots: true });
  t.notOk('updateSnapshots' in run(['test', '-f', 'proj']), 'not given: snapshots that differ fail');
  t.match(usage(['test', '-f', 'proj', '--update-snapshots=yes']), /--update-snapshots/);
  t.match(usage(['-f', 'proj', '--update-snapshots']), /unknown option '--update-snapshots'/);
});

t.test('--help and --version answer and exit 0', async (t) => {
  const c = ctx();
  t.same(parseNodeArgs(['--version'], c), { command: 'exit', code: 0 });
  t.equal(c.out.join(''), '1.2.3\n');
  const h = ctx();
  t.same(parseNodeArgs(['--help'], h), { command: 'exit', code: 0 });
  for (const flag of ['--batch-size', '--store-cache-async', '--unfinalized-blocks', '--network-endpoint', 'force-clean', 'reindex']) {
    t.match(h.out.join(''), flag);
  }
  const r = ctx();
  t.same(parseNodeArgs(['reindex', '--help'], r), { command: 'exit', code: 0 });
  t.match(r.out.join(''), '--targetHeight');
  t.match(h.out.join(''), 'Indexes an EVM chain', 'idx-node-ethereum reads EVM chains only');
  const base = ctx({ variant: 'base' });
  parseNodeArgs(['--help'], base);
  t.match(base.out.join(''), 'Indexes a Substrate or EVM chain', 'idx-node names both families');
});

t.test('the config file holds any flag, camelCase or kebab-case; flags given on the command line win', async (t) => {
  const dir = t.testdir({
    'idx-config.yml': [
      'idx: .',
      'idxName: from-file',
      'batchSize: 50',
      'db-schema: app',
      'unfinalizedBlocks: true',
      'store-cache-async: false',
      'networkEndpoint: [http://a:8545, http://b:8545]',
      'port: 4000',
      'csvOutDir: csv',
      'logLevel: warn',
      'debug: true',
      'statusPage: true',
      '',
    ].join('\n'),
  });
  const file = join(dir, 'idx-config.yml');
  const { options } = run(['-c', file]);
  t.match(options, {
    idx: dir,
    idxName: 'from-file',
    batchSize: 50,
    dbSchema: 'app',
    unfinalizedBlocks: true,
    storeCacheAsync: false,
    networkEndpoint: ['http://a:8545', 'http://b:8545'],
    port: 4000,
    csvOutDir: join(dir, 'csv'),
    logLevel: 'warn',
    debug: '*',
    statusPage: true,
    timeout: 10000,
  });
  t.same(options.givenFlags, ['unfinalizedBlocks'], "a runner flag the file sets wins over the manifest's runner.node.options");
  const { options: o2 } = run(['-c', file, '--batch-size', '5', '-f', '/q', '--network-endpoint', 'http://c:8545', '--unfinalized-blocks=false']);
  t.match(o2, { idx: '/q', batchSize: 5, networkEndpoint: ['http://c:8545'], unfinalizedBlocks: false, dbSchema: 'app' }, 'flags win');
  // combinations are checked on the merged settings
  const bad = t.testdir({ 'c.yml': 'idx: .\nunfinalized-blocks: true\ndisableHistorical: true\n' });
  t.match(usage(['-c', join(bad, 'c.yml')]), /--unfinalized-blocks needs historical tracking/);
});

t.test('the config file: unknown keys and bad values refused, naming the key, its line and column', async (t) => {
  const dir = t.testdir({
    'bad.yml': ['idx: .', 'batchSise: 5', 'batchSize: 0', 'unsafe: yes', 'port: [1, 2]', 'logLevel: loud', 'config: other.yml', 'batch-size: 3', ''].join('\n'),
    'missing.yml': 'idxName: app\n',
    'types.yml': 'idx: 5\nidxName: ""\n',
  });
  const problems = (file: string) => {
    try {
      run(['-c', join(dir, file)]);
    } catch (e) {
      return (e as ValidationError).problems.map((p) => `${p.path}${p.line ? `:${p.line}:${p.column}` : ''}: ${p.message}`);
    }
    throw new Error('expected a refusal');
  };
  const refused = problems('bad.yml');
  t.same(refused, [
    'batchSise:2:12: unknown setting (did you mean "batchSize"?); the config file takes the node\'s flags as camelCase or kebab-case keys (batchSize or batch-size for --batch-size; idx-node --help lists them)',
    'batchSize:3:12: expected a positive integer',
    'unsafe:4:9: expected true or false, got "yes"',
    'port:5:7: expected one value, not a list (only networkEndpoint takes a list)',
    'logLevel:6:11: Allowed choices are fatal, error, warn, info, debug, trace, silent',
    "config:7:9: unknown setting; the config file takes the node's flags as camelCase or kebab-case keys (batchSize or batch-size for --batch-size; idx-node --help lists them)",
    'batch-size:8:13: sets --batch-size a second time (also as batchSize)',
  ]);
  t.same(problems('missing.yml'), ['idx: required: the project folder ("." is the folder of this file)']);
  t.same(problems('types.yml'), [
    'idx:1:6: expected the project folder as a string ("." is the folder of this file)',
    'idxName:2:10: expected a non-empty value',
  ]);
});

t.test("--network-endpoint-config gives the --network-endpoint at its position headers and a batch size (SubQuery's flag)", async (t) => {
  const { options } = run([
    '-f',
    'p',
    '--network-endpoint',
    'http://a:1',
    '--network-endpoint-config',
    '{"headers":{"x-api-key":"k"},"batchSize":5}',
    '--network-endpoint',
    'http://b:2',
  ]);
  t.same(networkEndpoints(options), [{ url: 'http://a:1', headers: { 'x-api-key': 'k' }, batchSize: 5 }, { url: 'http://b:2' }]);
  t.same(networkEndpoints(run(['-f', 'p']).options), [], 'none given: the manifest says');

  const secret = 'k-0123456789abcdef';
  const refusals = [
    usage(['-f', 'p', '--network-endpoint-config', `{"headers":{"x-api-key":"${secret}"}}`]),
    usage(['-f', 'p', '--network-endpoint', 'http://a:1', '--network-endpoint-config', `{"headers":{"x-api-key":"${secret}"},"batchsize":1}`]),
    usage(['-f', 'p', '--network-endpoint', 'http://a:1', '--network-endpoint-config', `{"headers":{"x-api-key":${JSON.stringify(secret)}`]),
    usage(['-f', 'p', '--network-endpoint', 'http://a:1', '--network-endpoint-config', `{"headers":{"x-api-key":7},"batchSize":0}`]),
  ];
  t.match(refusals[0], /1 --network-endpoint-config for 0 --network-endpoint/);
  t.match(refusals[1], /--network-endpoint-config number 1: unknown key "batchsize"; it takes headers and batchSize/);
  t.match(refusals[2], /--network-endpoint-config number 1 is not JSON/);
  t.match(refusals[3], /headers must be an object of header names to string values.*batchSize must be a positive integer/);
  for (const r of refusals) t.notMatch(r, secret, 'the refusal does not quote the value: its headers may hold a key');
});

import t from 'tap';
import { parseQueryArgs, type QueryOptions } from './query-options.ts';

const ctx = { version: '1.2.3', cwd: '/home/me/my-project', write: () => {} };
const parse = (args: string[]): QueryOptions => {
  const cmd = parseQueryArgs(args, ctx);
  if (cmd.command !== 'run') throw new Error('expected run');
  return cmd.options;
};

t.test('defaults follow docs/usage.md', async (t) => {
  const o = parse([]);
  t.match(o, {
    aggregate: true,
    disableHotSchema: false,
    logLevel: 'info',
    logRotate: false,
    maxConnection: 10,
    name: 'my-project',
    outputFmt: 'colored',
    playground: false,
    port: 3000,
    queryComplexity: 10,
    queryLimit: 100,
    queryTimeout: 10000,
    subscription: false,
    unsafe: false,
  });
  t.equal(o.indexer, undefined);
  t.equal(o.logPath, undefined);
});

t.test('every option parses', async (t) => {
  const o = parse([
    '-n',
    'erc20',
    '--aggregate=false',
    '--disable-hot-schema',
    '--indexer',
    'http://localhost:3001/',
    '--log-level',
    'debug',
    '--log-path',
    '/tmp/q.log',
    '--log-rotate',
    '--max-connection',
    '4',
    '--output-fmt',
    'json',
    '--playground',
    '--playground-settings',
    '{"editor.theme":"light"}',
    '--port',
    '4000',
    '--pg-ca',
    'ca.pem',
    '--pg-cert',
    'c.pem',
    '--pg-key',
    'k.key',
    '--query-complexity',
    '50',
    '--query-limit',
    '500',
    '--query-timeout',
    '2000',
    '--subscription=true',
    '--unsafe',
  ]);
  t.match(o, {
    name: 'erc20',
    aggregate: false,
    disableHotSchema: true,
    indexer: 'http://localhost:3001',
    logLevel: 'debug',
    logPath: '/tmp/q.log',
    logRotate: true,
    maxConnection: 4,
    outputFmt: 'json',
    playground: true,
    playgroundSettings: { 'editor.theme': 'light' },
    port: 4000,
    pgCa: 'ca.pem',
    pgCert: 'c.pem',
    pgKey: 'k.key',
    queryComplexity: 50,
    queryLimit: 500,
    queryTimeout: 2000,
    subscription: true,
    unsafe: true,
  });
  t.equal(parse(['--name', 'other']).name, 'other');
});

t.test('bad values fail naming the flag', async (t) => {
  const bad: [string[], RegExp][] = [
    [['--port', 'x'], /--port/],
    [['--port', '70000'], /--port must be at most 65535/],
    [['--query-limit', '0'], /--query-limit/],
    [['--query-complexity', '-1'], /--query-complexity/],
    [['--query-timeout', '1.5'], /--query-timeout/],
    [['--max-connection', 'many'], /--max-connection/],
    [['--log-level', 'loud'], /--log-level/],
    [['--output-fmt', 'xml'], /--output-fmt/],
    [['--unsafe=yes'], /--unsafe/],
    [['--indexer', 'localhost:3000'], /--indexer/],
    [['--playground', '--playground-settings', '{bad'], /--playground-settings/],
    [['--playground', '--playground-settings', '[1]'], /--playground-settings/],
    [['--playground-settings', '{}'], /--playground-settings needs --playground/],
    [['--log-rotate'], /--log-rotate needs --log-path/],
    [['--pg-cert', 'c.pem'], /--pg-cert and --pg-key/],
    [['-n', ''], /--name/],
    [['--no-such-flag'], /unknown option/],
    [['extra'], /too many arguments|unknown command/],
  ];
  for (const [args, message] of bad) t.throws(() => parseQueryArgs(args, ctx), { code: 'BAD_ARGUMENT', message }, args.join(' '));
});

t.test('--help and --version answer and exit 0', async (t) => {
  let out = '';
  const write = (s: string) => void (out += s);
  t.same(parseQueryArgs(['--help'], { ...ctx, write }), { command: 'exit', code: 0 });
  for (const flag of [
    '--aggregate',
    '--query-complexity',
    '--query-limit',
    '--query-timeout',
    '--playground-settings',
    '--subscription',
    '--unsafe',
    '--log-rotate',
  ]) {
    t.match(out, flag, `help lists ${flag}`);
  }
  out = '';
  t.same(parseQueryArgs(['--version'], { ...ctx, write }), { command: 'exit', code: 0 });
  t.match(out, '1.2.3');
});

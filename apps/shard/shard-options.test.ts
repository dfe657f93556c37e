import t from 'tap';
import { normaliseShardFlags, parseShardArgs } from './shard-options.ts';

const parse = (argv: string[]) => parseShardArgs(argv, { version: '1.2.3', write: () => {} });

t.test('the shard flags as docs/usage.md writes them, and with two dashes', async (t) => {
  t.same(normaliseShardFlags(['-shardstart=5', '-shardend', '9', '-p', '1']), ['--shardstart=5', '--shardend', '9', '-p', '1']);
  t.match(parse(['--upstream', 'http://x', '-shardstart=5', '-shardend=9']), { command: 'run', options: { shardStart: 5, shardEnd: 9 } });
  t.match(
    parse(['--upstream', 'http://x', '--shardstart', '5', '--shardend=0']),
    { command: 'run', options: { shardStart: 5, shardEnd: null } },
    '-shardend=0 follows the chain',
  );
  const plain = parse(['--upstream', 'https://rpc.example/key']);
  t.match(plain, {
    command: 'run',
    options: {
      upstream: 'https://rpc.example/key',
      port: 8545,
      dbSchema: 'idx_shard',
      dataDir: '.idx-shard-data',
      batchSize: 100,
      maxLogRange: 10000,
      maxLogResults: 10000,
      logLevel: 'info',
      outputFmt: 'colored',
    },
  });
  t.notOk(plain.command === 'run' && 'shardStart' in plain.options, 'no flag: the stored range applies');
  t.match(plain, { options: { adminHost: '127.0.0.1', maxBatchCalls: 1000, maxResponseBytes: 25_000_000 } });
  t.notOk(
    plain.command === 'run' && (plain.options.host !== undefined || plain.options.adminSecretFile !== undefined || plain.options.adminPort !== undefined),
    'every interface; no admin endpoint',
  );
  t.match(parse(['--upstream', 'http://x', '--host', '127.0.0.1', '--admin-secret-file', 'jwt.hex', '--admin-port', '9000', '--admin-host', '::1']), {
    options: { host: '127.0.0.1', adminSecretFile: 'jwt.hex', adminPort: 9000, adminHost: '::1' },
  });
  t.same(parse(['--help']), { command: 'exit', code: 0 });
  t.same(parse(['--version']), { command: 'exit', code: 0 });
});

t.test('bad values fail naming the flag', async (t) => {
  t.throws(() => parse([]), { code: 'BAD_ARGUMENT', message: /--upstream <url> is required/ });
  t.throws(() => parse(['--upstream', 'ws://x']), { message: /--upstream/ });
  t.throws(() => parse(['--upstream', 'http://x', '-shardstart=-1']), { message: /shardstart/ });
  t.throws(() => parse(['--upstream', 'http://x', '-shardstart=abc']), { message: /shardstart/ });
  t.throws(() => parse(['--upstream', 'http://x', '-shardstart=9', '-shardend=9']), { message: /-shardend=9 must be above -shardstart=9/ });
  t.throws(() => parse(['--upstream', 'http://x', '--port', '70000']), { message: /--port/ });
  t.throws(() => parse(['--upstream', 'http://x', '--batch-size', '0']), { message: /--batch-size/ });
  t.throws(() => parse(['--upstream', 'http://x', '--db-schema', 'bad-name']), { message: /--db-schema/ });
  t.throws(() => parse(['--upstream', 'http://x', '--log-level', 'loud']), { message: /--log-level/ });
  t.throws(() => parse(['--upstream', 'http://x', '--pg-cert', 'c.pem']), { message: /--pg-cert and --pg-key/ });
  t.throws(() => parse(['--upstream', 'http://x', '--admin-port', '9000']), { message: /--admin-port and --admin-host need --admin-secret-file/ });
  t.throws(() => parse(['--upstream', 'http://x', '--admin-host', '0.0.0.0']), { message: /need --admin-secret-file/ });
  t.throws(() => parse(['--upstream', 'http://x', '--max-response-bytes', '0']), { message: /--max-response-bytes/ });
  t.throws(() => parse(['--upstream', 'http://x', '--nope']), { message: /unknown option '--nope'/ });
});

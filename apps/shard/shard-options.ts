import { CommanderError, InvalidArgumentError, Option } from 'commander';
import { positiveInt } from '../../infra/cli/option-values.ts';
import { createProgram } from '../../infra/cli/create-program.ts';
import { UsageError } from '../../infra/cli/usage-error.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

/** Every `idx-shard` option, parsed and with its default. */
export interface ShardOptions {
  upstream: string;
  /** `-shardstart`: the tail; undefined = as stored by an earlier run, else 0 */
  shardStart?: number;
  /** `-shardend`: the head; null = unset (follow the chain), undefined = as stored by an earlier run */
  shardEnd?: number | null;
  port: number;
  /** `--host`: the public endpoint's address; undefined = every interface */
  host?: string;
  /** `--admin-secret-file`: turns the admin endpoint on; its requests carry JWTs signed with this file's secret */
  adminSecretFile?: string;
  /** `--admin-port`: undefined = the public endpoint's port + 1 */
  adminPort?: number;
  /** `--admin-host`: the admin endpoint's address */
  adminHost: string;
  maxBatchCalls: number;
  maxResponseBytes: number;
  dbSchema: string;
  dataDir: string;
  batchSize: number;
  pollInterval: number;
  maxLogRange: number;
  maxLogResults: number;
  logLevel: (typeof LOG_LEVELS)[number];
  outputFmt: 'json' | 'colored';
  pgCa?: string;
  pgCert?: string;
  pgKey?: string;
}

export type ShardCommand = { command: 'run'; options: ShardOptions } | { command: 'exit'; code: number };

const height = (v: string): number => {
  if (!/^\d+$/.test(v) || !Number.isSafeInteger(Number(v))) throw new InvalidArgumentError('expected a block height (a whole number, 0 or more).');
  return Number(v);
};
const port = (v: string): number => {
  const p = positiveInt(v);
  if (p > 65535) throw new InvalidArgumentError('expected a port number (1-65535).');
  return p;
};
const httpUrl = (v: string): string => {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new InvalidArgumentError('expected an http(s):// URL of an Ethereum JSON-RPC endpoint.');
  }
  return v;
};
const schemaName = (v: string): string => {
  if (!/^[A-Za-z_][A-Za-z0-9_]{0,62}$/.test(v))
    throw new InvalidArgumentError('expected a schema name: letters, digits and _, not starting with a digit, at most 63 characters.');
  return v;
};

/**
 * The reference writes the shard flags with one dash (`-shardstart=<n>`), as geth-style nodes do;
 * commander would read that as a cluster of short flags, so they become `--shardstart` first.
 */
export function normaliseShardFlags(argv: readonly string[]): string[] {
  return argv.map((a) => a.replace(/^-(shardstart|shardend)(?==|$)/, '--$1'));
}

export function parseShardArgs(argv: readonly string[], ctx: { version: string; write: (text: string) => void }): ShardCommand {
  const program = createProgram(
    'idx-shard',
    'A sharded Ethereum data node: syncs blocks, transactions, receipts and logs of [tail, head] from an upstream endpoint and serves them over JSON-RPC.',
    ctx,
  )
    .addOption(new Option('--upstream <url>', 'the Ethereum JSON-RPC endpoint to sync from (required)').argParser(httpUrl))
    .addOption(new Option('--shardstart <n>', 'the tail: the lowest block kept (also written -shardstart=<n>); default 0, or as set before').argParser(height))
    .addOption(
      new Option('--shardend <n>', 'the head: the highest block kept, 0 = follow the chain (also -shardend=<n>); default as set before').argParser(height),
    )
    .addOption(new Option('-p, --port <port>', 'port of the JSON-RPC endpoint; the next free one when busy').argParser(port).default(8545))
    .addOption(new Option('--host <address>', 'address the JSON-RPC endpoint listens on (default: every interface)'))
    .addOption(
      new Option(
        '--admin-secret-file <file>',
        "turns on the admin endpoint (admin_* methods): a file with a 32-byte hex secret, as geth's --authrpc.jwtsecret (made when missing); requests carry 'Authorization: Bearer <JWT>' signed with it",
      ),
    )
    .addOption(new Option('--admin-port <port>', 'port of the admin endpoint (default: the JSON-RPC port + 1); the next free one when busy').argParser(port))
    .addOption(new Option('--admin-host <address>', 'address the admin endpoint listens on').default('127.0.0.1'))
    .addOption(new Option('--max-batch-calls <n>', 'the most calls in one JSON-RPC batch').argParser(positiveInt).default(1000))
    .addOption(
      new Option('--max-response-bytes <n>', 'the largest answer to one request (a call or a whole batch), in bytes')
        .argParser(positiveInt)
        .default(25_000_000),
    )
    .addOption(new Option('--db-schema <name>', 'database schema of the chain data').argParser(schemaName).default('idx_shard'))
    .addOption(new Option('--data-dir <folder>', 'embedded database folder, when DB_HOST is not set').default('.idx-shard-data'))
    .addOption(new Option('--batch-size <n>', 'blocks per sync batch (one database transaction each)').argParser(positiveInt).default(100))
    .addOption(new Option('--poll-interval <ms>', 'milliseconds between looks for new upstream blocks once synced').argParser(positiveInt).default(1000))
    .addOption(new Option('--max-log-range <n>', 'the most blocks one eth_getLogs may span').argParser(positiveInt).default(10000))
    .addOption(new Option('--max-log-results <n>', 'the most logs one eth_getLogs may return').argParser(positiveInt).default(10000))
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'))
    .addOption(new Option('--output-fmt <format>', 'terminal output format').choices(['json', 'colored']).default('colored'))
    .option('--pg-ca <file>', 'server certificate (.pem) for an SSL database connection')
    .option('--pg-cert <file>', 'client certificate (.pem)')
    .option('--pg-key <file>', 'client key file (.key)');

  try {
    program.parse(normaliseShardFlags(argv), { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return { command: 'exit', code: 0 };
      throw new UsageError(
        `idx-shard: ${e.message.replace(/^error: /, '').replace(/'--(shardstart|shardend) <n>'/, "'-$1=<n>'")}\nRun idx-shard --help for the options.`,
      );
    }
    throw e;
  }
  const o = program.opts<Omit<ShardOptions, 'shardStart' | 'shardEnd'> & { shardstart?: number; shardend?: number; upstream?: string }>();
  const errors: string[] = [];
  if (o.upstream === undefined) errors.push('--upstream <url> is required: the Ethereum JSON-RPC endpoint to sync from');
  if (o.shardend !== undefined && o.shardend !== 0 && o.shardend <= (o.shardstart ?? 0)) {
    errors.push(`-shardend=${o.shardend} must be above -shardstart=${o.shardstart ?? 0} (the head must be greater than the tail)`);
  }
  if (o.adminSecretFile === undefined && (o.adminPort !== undefined || program.getOptionValueSource('adminHost') === 'cli')) {
    errors.push('--admin-port and --admin-host need --admin-secret-file <file>: the admin endpoint only runs with a secret');
  }
  if ((o.pgCert === undefined) !== (o.pgKey === undefined)) errors.push('--pg-cert and --pg-key go together: give both or neither');
  if (errors.length > 0) throw new UsageError(`idx-shard: ${errors.join('; ')}\nRun idx-shard --help for the options.`);
  const { shardstart, shardend, ...rest } = o;
  return {
    command: 'run',
    options: {
      ...rest,
      upstream: o.upstream!,
      ...(shardstart !== undefined && { shardStart: shardstart }),
      ...(shardend !== undefined && { shardEnd: shardend === 0 ? null : shardend }),
    },
  };
}

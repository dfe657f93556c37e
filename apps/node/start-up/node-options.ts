import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { booleanValue as bool, positiveInt } from '../../../infra/cli/option-values.ts';
import type { EndpointConfig } from '../../../domain/project/project-model.ts';
import { createProgram } from '../../../infra/cli/create-program.ts';
import { loadConfigFile } from '../../../infra/project/load-config-file.ts';
import { namesMultichain } from '../../../infra/project/multichain-location.ts';
import { UsageError } from '../../../infra/cli/usage-error.ts';
import { schemaNameProblem } from '../../../domain/entities/names.ts';
import { configFileOptions } from './node-config-file.ts';
import { blockConfirmationPrograms, nodeVariants, type NodeVariant, type NodeVariantName } from '../families/registry.ts';
import { RUNNER_FLAGS, type RunnerFlag } from './runner-options.ts';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
export type OutputFormat = 'json' | 'colored';

/** Every `idx-node` option (docs/usage.md), parsed and with its default. */
export interface NodeOptions {
  idx?: string;
  config?: string;
  idxName?: string;
  allowSchemaMigration: boolean;
  /** `--changes-index` */
  changesIndex: boolean;
  /** undefined when neither the flag nor the config file sets it (then 100) */
  batchSize?: number;
  blockConfirmations: number;
  csvOutDir?: string;
  dbSchema?: string;
  debug?: string;
  disableHistorical: boolean;
  dictionaryResolver?: string;
  dictionaryTimeout: number;
  logLevel: LogLevel;
  multiChain: boolean;
  networkDictionary?: string;
  networkEndpoint: string[];
  /** `--network-endpoint-config`, as given: a JSON object `{ headers?, batchSize? }` per `--network-endpoint`, by position */
  networkEndpointConfig: string[];
  outputFmt: OutputFormat;
  port: number;
  pgCa?: string;
  pgCert?: string;
  pgKey?: string;
  profiler: boolean;
  proofOfIndex: boolean;
  /** `--promote <name>`: once caught up, point the deployment `name` at this schema (blue/green) */
  promote?: string;
  /** `--reuse <schema>`: a partial reindex: copy what the unchanged handlers wrote into `schema`, run only the changed ones */
  reuse?: string;
  queryLimit: number;
  /** `--rpc-cache`: the RPC cache's directory, `true` for the default one (rpc-cache-layer.ts), `false` for none */
  rpcCache: string | boolean;
  /** `--rpc-cache-size`, in MiB */
  rpcCacheSize: number;
  scaleBatchSize: boolean;
  /** `--status-page`: an HTML page at `/` for browsers, and `/status` */
  statusPage: boolean;
  storeCacheThreshold: number;
  /** with --store-cache-async: records held in memory before indexing waits for the flush committing */
  storeCacheUpperLimit: number;
  storeGetCacheSize: number;
  storeCacheAsync: boolean;
  storeFlushInterval: number;
  subscription: boolean;
  timeout: number;
  timestampField: boolean;
  unfinalizedBlocks: boolean;
  unsafe: boolean;
  verifyReceipts: boolean;
  workers: number;
  /** which of the flags a manifest's runner.node.options may set were given on the command line (they win) */
  givenFlags?: readonly RunnerFlag[];
}

export type NodeCommand =
  | { command: 'run'; options: NodeOptions; warnings: string[] }
  | { command: 'force-clean'; options: NodeOptions; warnings: string[] }
  | { command: 'reindex'; options: NodeOptions; targetHeight: number; warnings: string[] }
  /**
   * `test`: the project's subqlTests and subqlRangeTests (docs/testing.md); `testFilter` keeps the
   * test files whose name holds it; `record` asks the endpoint and keeps its answers for later runs to
   * replay; `updateSnapshots` rewrites range tests' snapshots that differ
   */
  | { command: 'test'; options: NodeOptions; testFilter?: string; record?: boolean; updateSnapshots?: boolean; warnings: string[] }
  /** `promote --name <name>`: point the deployment `name` at `--db-schema` now */
  | { command: 'promote'; name: string; options: NodeOptions; warnings: string[] }
  /** `rpc-cache clear|info`: empty the RPC cache (`options.rpcCache`), or say what it holds */
  | { command: 'rpc-cache'; action: 'clear' | 'info'; options: NodeOptions; warnings: string[] }
  /** `--help` or `--version` was answered; exit with this code */
  | { command: 'exit'; code: number };

export interface ParseNodeArgsContext {
  program: string;
  version: string;
  /** which node program parses (`base`: idx-node) */
  variant: NodeVariantName;
  /** CPU cores: `--workers` is limited by them */
  cores: number;
  write: (text: string) => void;
}

const nonNegativeInt = (v: string): number => {
  if (!/^\d+$/.test(v)) throw new InvalidArgumentError('expected a whole number (0 or more).');
  return Number(v);
};
const url = (v: string): string => {
  try {
    const u = new URL(v);
    if (!/^(https?|wss?):$/.test(u.protocol)) throw new Error();
  } catch {
    throw new InvalidArgumentError('expected an http(s):// or ws(s):// URL.');
  }
  return v;
};
/** `--rpc-cache <dir>`, `--rpc-cache=false` (none), `--rpc-cache` or `=true` (the default directory) */
const dirOrBool = (v: string): string | boolean => (v === 'true' ? true : v === 'false' ? false : v);
const rpcCacheOption = () =>
  new Option('--rpc-cache [dir]', 'keep final blocks, logs and receipts read from the chain in this folder (default: ~/.cache/idx/rpc); false: none')
    .argParser(dirOrBool)
    .default(true);
const schemaName = (v: string): string => {
  const problem = schemaNameProblem(v);
  if (problem !== undefined) throw new InvalidArgumentError(`${problem}.`);
  return v;
};
const collect = (v: string, prev: string[] = []): string[] => [...prev, url(v)];
// checked in checkCombinations: commander's own error would print the value, headers and all
const collectRaw = (v: string, prev: string[] = []): string[] => [...prev, v];

function addNodeOptions(cmd: Command, variant: NodeVariant): Command {
  const flag = (spec: string, desc: string, dflt: boolean) => new Option(`${spec} [bool]`, desc).argParser(bool).default(dflt);
  return cmd
    .option('-f, --idx <path>', 'start the project at this path')
    .option('-c, --config <file>', 'a config file (.yml or .json) holding any of these settings as camelCase or kebab-case keys; flags given too win')
    .option('--idx-name <name>', 'name of the project (default: the project folder name)')
    .addOption(flag('--allow-schema-migration', 'allow automated schema migration on project upgrade', false))
    .addOption(new Option('--batch-size <n>', 'blocks per fetch; overrides the config file (default: 100)').argParser(positiveInt))
    .addOption(
      new Option(
        '--block-confirmations <n>',
        variant.blockConfirmations ? 'blocks behind head treated as finalised' : `only for ${blockConfirmationPrograms()}; no effect here`,
      )
        .argParser(positiveInt)
        .default(200),
    )
    .addOption(flag('--changes-index', "index versions by the heights they began and ended, for idx-query's <entity>Changes", false))
    .option('--csv-out-dir <folder>', 'also write entity data to CSV files in this folder')
    .option('--db-schema <name>', 'database schema of the project; a new name starts indexing from scratch')
    .addOption(new Option('--debug [scopes]', 'debug logging for scopes: "*" for all, a comma list, "-scope" to leave one out').preset('*'))
    .addOption(flag('--disable-historical', 'disable automated historical state tracking', false))
    .addOption(new Option('--dictionary-resolver <url>', 'resolver used to find a dictionary; overrides --network-dictionary').argParser(url))
    .addOption(new Option('--dictionary-timeout <s>', 'seconds, for dictionary queries').argParser(positiveInt).default(30))
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVELS).default('info'))
    .addOption(flag('--multi-chain', 'index several projects into the same --db-schema', false))
    .addOption(new Option('-d, --network-dictionary <url>', 'dictionary GraphQL endpoint (default: from the manifest)').argParser(url))
    .addOption(new Option('--network-endpoint <url>', 'network RPC endpoint; repeat for several (default: from the manifest)').argParser(collect).default([]))
    .addOption(
      new Option(
        '--network-endpoint-config <json>',
        'settings of the --network-endpoint at the same position, as JSON: {"headers": {"<name>": "<value>"}, "batchSize": <n>}',
      )
        .argParser(collectRaw)
        .default([]),
    )
    .addOption(new Option('--output-fmt <format>', 'terminal output format').choices(['json', 'colored']).default('colored'))
    .addOption(new Option('-p, --port <port>', 'port to bind; the next free one when busy').argParser(positiveInt).default(3000))
    .option('--pg-ca <file>', 'server certificate (.pem) for an SSL database connection')
    .option('--pg-cert <file>', 'client certificate (.pem)')
    .option('--pg-key <file>', 'client key file (.key)')
    .addOption(flag('--profiler', 'print profiler information', false))
    .addOption(flag('--proof-of-index', 'enable proof of indexing', false))
    .addOption(
      new Option(
        '--promote <name>',
        'once caught up with the chain head, point the deployment <name> at this schema: idx-query -n <name> switches to it (blue/green)',
      ).argParser(schemaName),
    )
    .addOption(new Option('--query-limit <n>', 'maximum items one store operation returns in mappings').argParser(positiveInt).default(100))
    .addOption(
      new Option(
        '--reuse <schema>',
        "index a new --db-schema from <schema>, an earlier version's: the rows of handlers whose code did not change are copied, only the changed handlers run over its blocks",
      ).argParser(schemaName),
    )
    .addOption(rpcCacheOption())
    .addOption(
      new Option('--rpc-cache-size <MiB>', 'the RPC cache bound, shared by all chains; the least recently used answers go')
        .argParser(positiveInt)
        .default(1024),
    )
    .addOption(flag('--scale-batch-size', 'scale fetch batch size with memory usage', false))
    .addOption(flag('--status-page', 'serve a status page to browsers at / (heights, progress, pace, ETA, last error), polling /status', false))
    .addOption(new Option('--store-cache-threshold <n>', 'with --store-cache-async=false: flush when records exceed this').argParser(positiveInt).default(1000))
    .addOption(
      new Option(
        '--store-cache-upper-limit <n>',
        'with --store-cache-async: records held in memory before indexing waits for the flush in progress; flushes start at half of it',
      )
        .argParser(positiveInt)
        .default(20000),
    )
    .addOption(new Option('--store-get-cache-size <n>', 'with --store-cache-async=false: recent reads kept in memory').argParser(positiveInt).default(500))
    .addOption(flag('--store-cache-async', 'flush the store cache asynchronously to indexing', true))
    .addOption(new Option('--store-flush-interval <s>', 'seconds between cache flushes').argParser(positiveInt).default(5))
    .addOption(flag('--subscription', 'create notification triggers on entities (for idx-query --subscription)', false))
    .addOption(new Option('--timeout <ms>', 'milliseconds the mappings of one block may take').argParser(positiveInt).default(10000))
    .addOption(flag('--timestamp-field', 'keep created_at and updated_at columns', true))
    .addOption(flag('--unfinalized-blocks', 'index blocks before finalisation, rolling back forks', false))
    .addOption(flag('--unsafe', 'lift the sandbox restrictions (any import, network, unsafeApi)', false))
    .addOption(flag('--verify-receipts', "check fetched logs against every block header's receipts root (more RPC calls)", false))
    .addOption(new Option('-w, --workers <n>', 'additional worker threads for fetching; 0 = main thread only').argParser(nonNegativeInt).default(0));
}

/** The runner flags set on the command line, not by default. */
function givenFlags(cmd: Command): RunnerFlag[] {
  return RUNNER_FLAGS.filter((flag) => cmd.getOptionValueSource(flag) === 'cli');
}

/**
 * The `-c` file's settings under those of the command line: a flag given wins, a setting of the
 * file wins over a default. A runner flag the file sets counts as given (the manifest's
 * runner.node.options does not override it).
 */
function withConfigFile(cmd: Command, options: NodeOptions, makeCommand: () => Command): NodeOptions {
  if (options.config === undefined) return options;
  const { values } = configFileOptions(loadConfigFile(options.config), makeCommand);
  const merged: Record<string, unknown> = { ...options };
  const given = new Set<string>(options.givenFlags ?? []);
  for (const [name, value] of Object.entries(values)) {
    if (cmd.getOptionValueSource(name) === 'cli') continue;
    merged[name] = value;
    if ((RUNNER_FLAGS as readonly string[]).includes(name)) given.add(name);
  }
  return { ...(merged as unknown as NodeOptions), givenFlags: RUNNER_FLAGS.filter((f) => given.has(f)) };
}

/** Parses `idx-node` arguments (without `node` and the script). Throws UsageError on a bad option or combination. */
export function parseNodeArgs(argv: readonly string[], ctx: ParseNodeArgsContext): NodeCommand {
  let result: NodeCommand | undefined;
  const variant = nodeVariants[ctx.variant];
  const configCommand = () => addNodeOptions(createProgram(ctx.program, '', { version: ctx.version, write: () => undefined }), variant);
  const program = createProgram(ctx.program, variant.description, ctx)
    // options after a subcommand belong to it: `reindex -f proj`
    .enablePositionalOptions();
  /** A command's options: the flags given, under those of a config file, with which flags were given. */
  const optionsOf = (cmd: Command, opts: NodeOptions) => withConfigFile(cmd, { ...opts, givenFlags: givenFlags(cmd) }, configCommand);
  const subcommand = (name: string, description: string) =>
    addNodeOptions(program.command(name).description(description), variant).helpOption('--help', 'show options');

  addNodeOptions(program, variant).action(() => {
    result = { command: 'run', options: optionsOf(program, program.opts<NodeOptions>()), warnings: [] };
  });
  subcommand('force-clean', "drop the project's schema and all indexed data, then exit").action(function (this: Command) {
    result = { command: 'force-clean', options: optionsOf(this, this.opts<NodeOptions>()), warnings: [] };
  });
  subcommand('reindex', 'remove data above --targetHeight and exit; the next start indexes from it')
    .requiredOption('--targetHeight <n>', 'block height to reindex from', nonNegativeInt)
    .action(function (this: Command) {
      const { targetHeight, ...options } = this.opts<NodeOptions & { targetHeight: number }>();
      result = { command: 'reindex', options: optionsOf(this, options), targetHeight, warnings: [] };
    });
  subcommand('test', "run the project's mapping tests (@subql/testing's subqlTest, built into dist/test by idx build)")
    .option('--test-filter <name>', 'only the test files whose name (or path under dist/) contains this')
    .option(
      '--record',
      'ask the endpoint and keep what the tests read from the chain beside them (src/test/__recordings__/), for later runs to replay without it',
    )
    .option('--update-snapshots', 'range tests (subqlRangeTest with snapshot: true) rewrite the snapshots they differ from instead of failing')
    .action(function (this: Command) {
      const { testFilter, record, updateSnapshots, ...options } = this.opts<
        NodeOptions & { testFilter?: string; record?: boolean; updateSnapshots?: boolean }
      >();
      result = {
        command: 'test',
        options: optionsOf(this, options),
        ...(testFilter !== undefined && { testFilter }),
        ...(record === true && { record }),
        ...(updateSnapshots === true && { updateSnapshots }),
        warnings: [],
      };
    });
  subcommand('promote', 'point a deployment name at --db-schema now, for idx-query -n <name> (blue/green); the old schema is kept')
    .requiredOption('--name <name>', 'the deployment name idx-query serves (-n)', schemaName)
    .action(function (this: Command) {
      const { name, ...options } = this.opts<NodeOptions & { name: string }>();
      result = { command: 'promote', name, options: optionsOf(this, options), warnings: [] };
    });
  subcommand('rpc-cache', 'the RPC cache shared by projects on this machine: `clear` empties it, `info` says what it holds per chain')
    .argument('<action>', 'clear or info', (v: string) => {
      if (v !== 'clear' && v !== 'info') throw new InvalidArgumentError('expected clear or info.');
      return v;
    })
    .action(function (this: Command, action: 'clear' | 'info') {
      result = { command: 'rpc-cache', action, options: optionsOf(this, this.opts<NodeOptions>()), warnings: [] };
    });
  for (const sub of program.commands) sub.exitOverride().configureOutput({ writeOut: ctx.write, writeErr: () => undefined });

  try {
    program.parse(argv as string[], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return { command: 'exit', code: 0 };
      throw new UsageError(`${ctx.program}: ${e.message.replace(/^error: /, '')}\nRun ${ctx.program} --help for the options.`);
    }
    throw e;
  }
  if (result === undefined) throw new UsageError(`${ctx.program}: nothing to do; run ${ctx.program} --help for the options.`);
  if (result.command !== 'exit') result.warnings.push(...checkCombinations(result, ctx));
  return result;
}

/** `--reuse`: what a partial reindex cannot be combined with (docs/deploy.md) */
function reuseProblems(command: NodeCommand['command'], o: NodeOptions): string[] {
  const problems: string[] = [];
  if (command !== 'run') problems.push('--reuse applies to indexing');
  if (o.multiChain) problems.push('--reuse: a --multi-chain schema cannot be reused (its chains are indexed by several nodes)');
  if (o.disableHistorical) problems.push('--reuse copies rows by height and needs historical tracking; remove --disable-historical');
  if (o.proofOfIndex)
    problems.push("--reuse: the proof of indexing covers every handler's writes in order, which a partial reindex does not replay; remove --proof-of-index");
  if (o.csvOutDir !== undefined) problems.push('--reuse: the CSV files would lack the copied rows, which no handler writes; remove --csv-out-dir');
  if (o.dbSchema !== undefined && o.dbSchema === o.reuse) problems.push(`--reuse ${o.reuse}: the schema reused must be another than --db-schema`);
  return problems;
}

/** Rules between options (docs/usage.md); errors throw, harmless mismatches come back as warnings. */
function checkCombinations(cmd: Exclude<NodeCommand, { command: 'exit' }>, ctx: ParseNodeArgsContext): string[] {
  const o = cmd.options;
  const warnings: string[] = [];
  const errors: string[] = [];
  if ((cmd.command === 'force-clean' || cmd.command === 'reindex' || cmd.command === 'test') && o.idx === undefined && o.config === undefined) {
    errors.push(`${cmd.command} needs the project: -f, --idx <path>`);
  }
  if (cmd.command === 'promote' && o.dbSchema === undefined && o.idx === undefined && o.config === undefined)
    errors.push("promote needs the schema to serve: --db-schema <name> (or -f, --idx <path> for the project's own)");
  if (o.promote !== undefined && cmd.command !== 'run') errors.push(`--promote applies to indexing; to promote now use idx-node promote --name ${o.promote}`);
  if (o.promote !== undefined && o.multiChain)
    errors.push('--promote: a --multi-chain schema is caught up chain by chain; promote it with idx-node promote once every chain is');
  if (o.reuse !== undefined) errors.push(...reuseProblems(cmd.command, o));
  if (cmd.command === 'reindex' && o.disableHistorical) errors.push('reindex needs historical tracking; remove --disable-historical');
  if (o.unfinalizedBlocks && o.disableHistorical) errors.push('--unfinalized-blocks needs historical tracking; remove --disable-historical');
  if (o.changesIndex && o.disableHistorical) errors.push('--changes-index needs historical tracking; remove --disable-historical');
  // A multichain folder names its own schema: its folder's name (DECISIONS.md).
  if (o.multiChain && o.dbSchema === undefined && !(o.idx !== undefined && namesMultichain(o.idx))) {
    errors.push('--multi-chain needs --db-schema naming the shared schema');
  }
  if ((o.pgCert === undefined) !== (o.pgKey === undefined)) errors.push('--pg-cert and --pg-key go together: give both or neither');
  errors.push(...endpointConfigProblems(o));
  if (errors.length > 0) throw new UsageError(`${ctx.program}: ${errors.join('; ')}`);

  if (!nodeVariants[ctx.variant].blockConfirmations && o.blockConfirmations !== 200) {
    warnings.push(`--block-confirmations applies only to ${blockConfirmationPrograms()}; it has no effect here`);
  }
  if (o.storeCacheAsync && (o.storeCacheThreshold !== 1000 || o.storeGetCacheSize !== 500)) {
    warnings.push('--store-cache-threshold and --store-get-cache-size apply only with --store-cache-async=false');
  }
  if (!o.storeCacheAsync && o.storeCacheUpperLimit !== 20000) warnings.push('--store-cache-upper-limit applies only with --store-cache-async');
  if (o.workers > ctx.cores) {
    warnings.push(`--workers=${o.workers} is more than the ${ctx.cores} CPU cores; using ${ctx.cores}`);
    o.workers = ctx.cores;
  }
  if (o.dictionaryResolver !== undefined && o.networkDictionary !== undefined) {
    warnings.push('--dictionary-resolver overrides --network-dictionary');
  }
  return warnings;
}

/**
 * The `--network-endpoint`s with their `--network-endpoint-config`s (SubQuery's pair of flags: the
 * n-th config goes with the n-th endpoint, an endpoint without one has none); empty when no
 * endpoint is given. Only after parseNodeArgs, which checked the configs.
 */
export function networkEndpoints(o: Pick<NodeOptions, 'networkEndpoint' | 'networkEndpointConfig'>): EndpointConfig[] {
  return o.networkEndpoint.map((url, i) => {
    const raw = o.networkEndpointConfig[i];
    if (raw === undefined) return { url };
    const { headers, batchSize } = JSON.parse(raw) as { headers?: Record<string, string>; batchSize?: number };
    return { url, ...(headers !== undefined && { headers }), ...(batchSize !== undefined && { batchSize }) };
  });
}

/** What is wrong with the `--network-endpoint-config`s, never quoting them (their headers may hold keys). */
function endpointConfigProblems(o: NodeOptions): string[] {
  const problems: string[] = [];
  if (o.networkEndpointConfig.length > o.networkEndpoint.length) {
    problems.push(
      `${o.networkEndpointConfig.length} --network-endpoint-config for ${o.networkEndpoint.length} --network-endpoint: each config goes with the --network-endpoint at its position`,
    );
  }
  o.networkEndpointConfig.forEach((raw, i) => {
    const which = `--network-endpoint-config number ${i + 1}`;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      problems.push(`${which} is not JSON: expected an object such as {"headers": {"x-api-key": "<key>"}, "batchSize": 10}`);
      return;
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      problems.push(`${which}: expected a JSON object with headers and batchSize`);
      return;
    }
    const rec = value as Record<string, unknown>;
    for (const key of Object.keys(rec))
      if (key !== 'headers' && key !== 'batchSize') problems.push(`${which}: unknown key "${key}"; it takes headers and batchSize`);
    const { headers, batchSize } = rec;
    if (
      headers !== undefined &&
      (headers === null || typeof headers !== 'object' || Array.isArray(headers) || !Object.values(headers).every((h) => typeof h === 'string'))
    ) {
      problems.push(`${which}: headers must be an object of header names to string values`);
    }
    if (batchSize !== undefined && !(typeof batchSize === 'number' && Number.isSafeInteger(batchSize) && batchSize > 0)) {
      problems.push(`${which}: batchSize must be a positive integer`);
    }
  });
  return problems;
}

export const DEFAULT_BATCH_SIZE = 100;

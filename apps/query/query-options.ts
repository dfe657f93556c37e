import { basename, resolve } from 'node:path';
import { CommanderError, InvalidArgumentError, Option } from 'commander';
import { booleanValue as bool, positiveInt } from '../../infra/cli/option-values.ts';
import { LOG_LEVEL_NAMES, type LogFormat, type LogLevelName } from '../../infra/logging/create-logger.ts';
import { createProgram } from '../../infra/cli/create-program.ts';
import { UsageError } from '../../infra/cli/usage-error.ts';

/** Every `idx-query` option (docs/usage.md), parsed and with its default. */
export interface QueryOptions {
  aggregate: boolean;
  disableHotSchema: boolean;
  indexer?: string;
  logLevel: LogLevelName;
  logPath?: string;
  logRotate: boolean;
  maxConnection: number;
  /** the project name = the database schema the node wrote */
  name: string;
  /** `-f, --idx`: the project folder; without DB_HOST, the embedded database of the node running on it is read */
  idx: string;
  outputFmt: LogFormat;
  playground: boolean;
  /** `--playground-settings`, parsed: a JSON object */
  playgroundSettings?: Record<string, unknown>;
  port: number;
  pgCa?: string;
  pgCert?: string;
  pgKey?: string;
  queryComplexity: number;
  queryLimit: number;
  queryTimeout: number;
  /** `--subgraph`: also answer The Graph's query dialect at /subgraphs/name/<name> and /subgraph */
  subgraph: boolean;
  subscription: boolean;
  unsafe: boolean;
}

export type QueryCommand = { command: 'run'; options: QueryOptions } | { command: 'exit'; code: number };

export interface ParseQueryArgsContext {
  program?: string;
  version: string;
  /** the folder `-n` defaults to the name of (the process's working directory) */
  cwd: string;
  write: (text: string) => void;
}

const httpUrl = (v: string): string => {
  try {
    const u = new URL(v);
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error();
  } catch {
    throw new InvalidArgumentError('expected an http(s):// URL of the indexer, e.g. http://localhost:3000.');
  }
  return v.replace(/\/+$/, '');
};
const jsonObject = (v: string): Record<string, unknown> => {
  let parsed: unknown;
  try {
    parsed = JSON.parse(v);
  } catch (e) {
    throw new InvalidArgumentError(`expected a JSON object, e.g. '{"editor.theme":"light"}' (${(e as Error).message}).`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new InvalidArgumentError('expected a JSON object, e.g. \'{"editor.theme":"light"}\'.');
  return parsed as Record<string, unknown>;
};
const schemaName = (v: string): string => {
  if (v.trim() === '') throw new InvalidArgumentError('expected a project name (the database schema idx-node wrote).');
  if (Buffer.byteLength(v) > 63) throw new InvalidArgumentError('PostgreSQL schema names have at most 63 bytes.');
  return v;
};

/** Parses `idx-query` arguments (without `node` and the script). Throws UsageError on a bad option. */
export function parseQueryArgs(argv: readonly string[], ctx: ParseQueryArgsContext): QueryCommand {
  const programName = ctx.program ?? 'idx-query';
  const flag = (spec: string, desc: string, dflt: boolean) => new Option(`${spec} [bool]`, desc).argParser(bool).default(dflt);
  const program = createProgram(programName, 'Serves the data idx-node indexed over GraphQL (SubQuery-compatible queries).', ctx)
    .addOption(flag('--aggregate', 'enable GraphQL aggregation (aggregates, groupedAggregates)', true))
    .addOption(flag('--disable-hot-schema', 'do not reload the GraphQL schema when the node changes the project schema', false))
    .addOption(new Option('--indexer <url>', 'the indexer (idx-node) URL used for health, metadata and readiness').argParser(httpUrl))
    .addOption(new Option('--log-level <level>', 'log level').choices(LOG_LEVEL_NAMES).default('info'))
    .option('--log-path <file>', 'also write the log to this file')
    .addOption(flag('--log-rotate', 'rotate the --log-path file: daily, at most 7 files, at most 1 GB each', false))
    .addOption(new Option('--max-connection <n>', 'maximum simultaneous database connections').argParser(positiveInt).default(10))
    .addOption(
      new Option('-f, --idx <path>', 'the project folder: without DB_HOST, read the embedded database of the idx-node running on it').default(
        ctx.cwd,
        'the current folder',
      ),
    )
    .addOption(
      new Option('-n, --name <name>', 'project name: the database schema idx-node wrote (its --db-schema or --idx-name)')
        .argParser(schemaName)
        .default(basename(ctx.cwd), "the current folder's name"),
    )
    .addOption(new Option('--output-fmt <format>', 'terminal output format').choices(['json', 'colored']).default('colored'))
    .addOption(flag('--playground', 'serve the GraphQL playground at /', false))
    .addOption(new Option('--playground-settings <json>', 'extra playground settings, a JSON object').argParser(jsonObject))
    .addOption(new Option('--port <port>', 'port to bind; the next free one when busy').argParser(positiveInt).default(3000))
    .option('--pg-ca <file>', 'server certificate (.pem) for an SSL database connection')
    .option('--pg-cert <file>', 'client certificate (.pem)')
    .option('--pg-key <file>', 'client key file (.key)')
    .addOption(new Option('--query-complexity <n>', 'queries above this complexity are rejected').argParser(positiveInt).default(10))
    .addOption(new Option('--query-limit <n>', 'largest page (first/last); also the default page size').argParser(positiveInt).default(100))
    .addOption(new Option('--query-timeout <ms>', 'milliseconds a query may run').argParser(positiveInt).default(10000))
    .addOption(flag('--subgraph', "also serve The Graph's query dialect (graph-node's) at /subgraphs/name/<name> and /subgraph", false))
    .addOption(flag('--subscription', 'enable GraphQL subscriptions (the node needs --subscription too)', false))
    .addOption(flag('--unsafe', 'enable the aggregates sum, min, max, average, stddev* and variance*', false));

  try {
    program.parse(argv as string[], { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return { command: 'exit', code: 0 };
      throw new UsageError(`${programName}: ${e.message.replace(/^error: /, '')}\nRun ${programName} --help for the options.`);
    }
    throw e;
  }
  const options = program.opts<QueryOptions>();
  options.idx = resolve(ctx.cwd, options.idx);
  // the node's default schema is its project folder's name
  if (program.getOptionValueSource('name') === 'default') options.name = basename(options.idx);
  const errors: string[] = [];
  if (options.port > 65535) errors.push(`--port must be at most 65535, got ${options.port}`);
  if ((options.pgCert === undefined) !== (options.pgKey === undefined)) errors.push('--pg-cert and --pg-key go together: give both or neither');
  if (options.logRotate && options.logPath === undefined) errors.push('--log-rotate needs --log-path naming the file to rotate');
  if (options.playgroundSettings !== undefined && !options.playground) errors.push('--playground-settings needs --playground');
  if (errors.length > 0) throw new UsageError(`${programName}: ${errors.join('; ')}`);
  return { command: 'run', options };
}

import { pino, type Logger as Pino } from 'pino';
import { redactUrlsIn } from '../rpc/redact-url.ts';
import { ignoreClosedOutput, isClosedOutputError } from './ignore-closed-output.ts';

export const LOG_LEVEL_NAMES = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevelName = (typeof LOG_LEVEL_NAMES)[number];
export type LogFormat = 'json' | 'colored';
export type LogFields = Record<string, unknown>;

/** What every part of idx logs through: one category per part (`fetch`, `store`, `sandbox`, …). */
export interface Logger {
  fatal(message: string, fields?: LogFields): void;
  error(message: string, fields?: LogFields): void;
  warn(message: string, fields?: LogFields): void;
  info(message: string, fields?: LogFields): void;
  debug(message: string, fields?: LogFields): void;
  trace(message: string, fields?: LogFields): void;
  isDebugEnabled(): boolean;
  /** the lowest level this category prints (`--log-level`, or `debug` when `--debug` covers it) */
  level(): LogLevelName;
  /** a logger for another category, with the same output */
  child(category: string): Logger;
  /** a profiler line: `<timestamp> <profiler> INFO <Service>, <operation>, <n> ms`; nothing unless --profiler */
  profile(service: string, operation: string, ms: number): void;
  /** waits until every line is written (before exit) */
  flush(): void;
}

export interface CreateLoggerOptions {
  level: LogLevelName;
  format: LogFormat;
  /**
   * `--debug` scopes: `*` for all, a comma list of categories, `-category` to leave one out
   * (`*,-sql`). Debug logging for the chosen scopes overrides `level`.
   */
  debug?: string;
  profiler?: boolean;
  /** where lines go (default: standard output) */
  write?: (line: string) => void;
  /** ANSI colors in the colored format (default: when standard output is a terminal) */
  colors?: boolean;
  /**
   * Applied to every line before it is written (default: every URL in it redacted, docs/usage.md
   * "Endpoint URLs in logs"): whatever a message, a field or an error's stack and causes quote, an
   * endpoint's key never reaches the log.
   */
  redact?: (line: string) => string;
}

/** Which categories `--debug` turns on. */
export function debugScopes(spec: string | undefined): (category: string) => boolean {
  if (spec === undefined) return () => false;
  const parts = spec
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');
  const off = new Set(parts.filter((p) => p.startsWith('-')).map((p) => p.slice(1)));
  const on = new Set(parts.filter((p) => !p.startsWith('-')));
  // Only exclusions (`-sql`) means everything else.
  const all = on.has('*') || on.size === 0;
  return (category) => !off.has(category) && (all || on.has(category));
}

const LEVEL_COLORS: Record<string, string> = { fatal: '35', error: '31', warn: '33', info: '32', debug: '34', trace: '90' };

/** `<timestamp> <<category>> <LEVEL> <message>` (docs/usage.md "Logs"), extra fields appended as JSON unless they describe a named `event`. */
export function formatColoredLine(record: Record<string, unknown>, colors: boolean): string {
  const { level, timestamp, category, message, pid: _pid, hostname: _host, ...fields } = record;
  // fields of a named event repeat the message for machines (--output-fmt=json); the colored line is for people
  const rest = fields.event === undefined ? fields : {};
  const label = String(level).toUpperCase();
  const paint = (code: string | undefined, text: string) => (colors && code ? `\u001b[${code}m${text}\u001b[0m` : text);
  const extra = Object.keys(rest).length > 0 ? ` ${JSON.stringify(rest, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}` : '';
  return `${paint('90', String(timestamp))} ${paint('36', `<${String(category)}>`)} ${paint(LEVEL_COLORS[String(level)], label)} ${String(message)}${extra}\n`;
}

export function createLogger(options: CreateLoggerOptions): Logger {
  if (options.write === undefined) ignoreClosedOutput([process.stdout]);
  const out = options.write ?? ((line: string) => void process.stdout.write(line));
  const redact = options.redact ?? redactUrlsIn;
  // A line for an output that is gone is dropped: logging never stops the program (issue 27).
  const write = (line: string) => {
    try {
      out(redact(line));
    } catch (err) {
      if (!isClosedOutputError(err)) throw err;
    }
  };
  const colors = options.colors ?? (process.env.FORCE_COLOR !== undefined || (process.stdout.isTTY === true && process.env.NO_COLOR === undefined));
  const destination =
    options.format === 'json' ? { write } : { write: (line: string) => write(formatColoredLine(JSON.parse(line) as Record<string, unknown>, colors)) };
  const root = pino(
    {
      level: options.level,
      messageKey: 'message',
      formatters: { level: (label) => ({ level: label }) },
      timestamp: () => `,"timestamp":"${new Date().toISOString()}"`,
      serializers: { err: pino.stdSerializers.err },
      hooks: {
        // bigint fields (heights, wei) would make pino's JSON.stringify throw
        logMethod(args, method) {
          if (typeof args[0] === 'object' && args[0] !== null) args[0] = jsonSafe(args[0] as LogFields);
          method.apply(this, args as Parameters<typeof method>);
        },
      },
    },
    destination,
  );
  const debugOn = debugScopes(options.debug);
  const silent = options.level === 'silent';

  const wrap = (p: Pino, category: string): Logger => {
    if (!silent && debugOn(category)) p.level = 'debug';
    const log = (level: Exclude<LogLevelName, 'silent'>) => (message: string, fields?: LogFields) => {
      if (fields === undefined) p[level](message);
      else p[level](fields, message);
    };
    return {
      fatal: log('fatal'),
      error: log('error'),
      warn: log('warn'),
      info: log('info'),
      debug: log('debug'),
      trace: log('trace'),
      isDebugEnabled: () => p.isLevelEnabled('debug'),
      level: () => p.level as LogLevelName,
      child: (c) => wrap(root.child({ category: c }), c),
      profile: (service, operation, ms) => {
        if (options.profiler && !silent) profiler.info(`${service}, ${operation}, ${Math.round(ms)} ms`);
      },
      flush: () => root.flush(),
    };
  };
  // Profiler lines are info lines of their own category, printed even when --log-level hides info.
  const profiler = root.child({ category: 'profiler' }, { level: 'info' });
  return wrap(root.child({ category: 'idx' }), 'idx');
}

function jsonSafe(fields: LogFields): LogFields {
  let out: LogFields | undefined;
  for (const [k, v] of Object.entries(fields)) {
    if (typeof v === 'bigint') (out ??= { ...fields })[k] = v.toString();
  }
  return out ?? fields;
}

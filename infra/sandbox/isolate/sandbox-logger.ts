import { util } from './builtins/util.ts';
import { formatSize, measure, truncateText, type SandboxLimits } from './limits.ts';
import type { Bridge, InstallOptions } from './wire.ts';

export const LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace'] as const;

export interface SandboxLogger {
  /** the mapping's `logger` (pino's methods, `child` itself) */
  logger: Record<string, (...args: unknown[]) => void>;
  /** the mapping's `console`, onto the logger */
  console: Record<'log' | 'info' | 'warn' | 'error' | 'debug' | 'trace', (...args: unknown[]) => void>;
  /** sends one line to the host, within the block's log budget */
  send(level: string, text: string, fields: Record<string, unknown> | undefined): void;
}

/**
 * The mapping's logger and console: lines truncated and within the block's budget (`admit`, reset per
 * block), lines below `logLevel` never sent. `height` names the block in the note a dropped line leaves.
 */
export function createSandboxLogger(
  bridge: Pick<Bridge, 'log'>,
  limits: SandboxLimits,
  admit: (chars: number) => 'send' | 'first-drop' | 'drop',
  logLevel: InstallOptions['logLevel'],
  height: () => number,
): SandboxLogger {
  // Lines the node would not print never cross: formatting and copying them is all a flood costs.
  const threshold = logLevel === 'silent' ? -1 : LEVELS.indexOf(logLevel ?? 'trace');
  const send = (level: string, text: string, fields: Record<string, unknown> | undefined): void => {
    const message = truncateText(text, limits.logLineChars);
    const admitted = admit(message.length + (fields === undefined ? 0 : measure(fields)));
    if (admitted === 'send') bridge.log(level, message, fields);
    else if (admitted === 'first-drop') {
      bridge.log(
        'warn',
        `the mapping logged more than ${formatSize(limits.logBlockChars)} of text at block ${height()}: its further log lines in this block are dropped`,
        undefined,
      );
    }
  };
  const logger: Record<string, (...args: unknown[]) => void> = {};
  for (const level of LEVELS) {
    if (LEVELS.indexOf(level) > threshold) {
      logger[level] = () => {};
      continue;
    }
    logger[level] = (...args: unknown[]) => {
      let fields: Record<string, unknown> | undefined;
      if (args[0] instanceof Error) {
        const e = args.shift() as Error;
        const cut = (v: unknown) => (typeof v === 'string' ? truncateText(v, limits.logLineChars) : v);
        fields = { err: { name: cut(e.name), message: cut(e.message), stack: cut(e.stack) } };
        if (args.length === 0) args.push(e.message);
      } else if (args[0] !== null && typeof args[0] === 'object' && args.length > 1) {
        fields = loggable(args.shift() as Record<string, unknown>, limits.logLineChars);
      }
      send(level, util.format(...args), fields);
    };
  }
  logger.child = () => logger as never;
  const console = {
    log: logger.info!,
    info: logger.info!,
    warn: logger.warn!,
    error: logger.error!,
    debug: logger.debug!,
    trace: logger.trace!,
  };
  return { logger, console, send };
}

/** Log fields must survive structured clone and JSON log lines: bigint becomes its digits, anything odd its inspected text. */
function loggable(fields: Record<string, unknown>, maxChars: number): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(fields)) {
    const value = typeof v === 'bigint' ? v.toString() : v === null || ['string', 'number', 'boolean', 'undefined'].includes(typeof v) ? v : util.inspect(v);
    out[k] = typeof value === 'string' ? truncateText(value, maxChars) : value;
  }
  return out;
}

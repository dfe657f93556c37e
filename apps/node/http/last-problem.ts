import type { LogFields, Logger } from '../../../infra/logging/create-logger.ts';

/** The last warning or error the node logged: the status page shows it. */
export interface LoggedProblem {
  /** ms since the epoch */
  at: number;
  level: 'warn' | 'error' | 'fatal';
  category: string;
  message: string;
}

/** Longest message kept: a stack or a long endpoint answer would only bloat every status poll. */
const MAX_MESSAGE = 2000;

/**
 * `logger`, with each warning and error also handed to `record` (every category: fetch retries,
 * the sandbox, the store), so the status page can say what last went wrong without reading the log.
 */
export function recordingProblems(logger: Logger, record: (problem: LoggedProblem) => void, category = 'idx'): Logger {
  const tap =
    (level: LoggedProblem['level'], write: (message: string, fields?: LogFields) => void) =>
    (message: string, fields?: LogFields): void => {
      write(message, fields);
      record({ at: Date.now(), level, category, message: message.length > MAX_MESSAGE ? `${message.slice(0, MAX_MESSAGE)}…` : message });
    };
  return {
    ...logger,
    fatal: tap('fatal', logger.fatal),
    error: tap('error', logger.error),
    warn: tap('warn', logger.warn),
    child: (c) => recordingProblems(logger.child(c), record, c),
  };
}

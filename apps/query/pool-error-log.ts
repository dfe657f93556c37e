import type { Logger } from '../../infra/logging/create-logger.ts';

/**
 * What the query service's database pools say when an idle connection fails: a warning while it
 * serves (the database or the node serving an embedded one went away), debug once the service is
 * closing, when that is expected: `npm start`'s Ctrl-C stops the node and idx-query together, and
 * the node closes its socket's connections as idx-query closes its pools.
 */
export function poolErrorLog(logger: Logger): { onPoolError: (err: Error) => void; closing: () => void } {
  const log = logger.child('db');
  let closing = false;
  return {
    onPoolError: (err) => {
      const line = `idle database connection failed: ${err.message}`;
      if (closing) log.debug(line);
      else log.warn(line);
    },
    closing: () => void (closing = true),
  };
}

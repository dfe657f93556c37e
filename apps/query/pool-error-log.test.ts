import t from 'tap';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { poolErrorLog } from './pool-error-log.ts';

t.test('a failed idle connection is a warning while serving, debug once the service is closing', (t) => {
  const lines: { level: string; category?: string; message: string }[] = [];
  const logger = createLogger({ level: 'debug', format: 'json', write: (line) => void lines.push(JSON.parse(line) as (typeof lines)[number]) });
  const pool = poolErrorLog(logger);
  pool.onPoolError(new Error('the node is shutting down'));
  pool.closing();
  pool.onPoolError(new Error('the node is shutting down'));
  t.match(lines, [
    { level: 'warn', message: 'idle database connection failed: the node is shutting down' },
    { level: 'debug', message: 'idle database connection failed: the node is shutting down' },
  ]);
  t.equal(lines.length, 2);
  t.end();
});

import t from 'tap';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { recordingProblems, type LoggedProblem } from './last-problem.ts';

t.test('warnings and errors of every category are recorded, and still logged', async (t) => {
  const lines: string[] = [];
  const problems: LoggedProblem[] = [];
  const logger = recordingProblems(createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) }), (p) => problems.push(p));
  logger.child('fetch').info('fetched');
  logger.child('fetch').warn('eth_getLogs failed; retrying');
  logger.child('node').child('mapping').error('x'.repeat(5000));
  t.same(
    problems.map((p) => [p.level, p.category, p.message.length]),
    [
      ['warn', 'fetch', 28],
      ['error', 'mapping', 2001],
    ],
    'long messages are cut',
  );
  t.equal(lines.length, 3, 'every line still written');
  t.match(JSON.parse(lines[1]!), { level: 'warn', category: 'fetch', message: 'eth_getLogs failed; retrying' });
});

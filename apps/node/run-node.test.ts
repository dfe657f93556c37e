import t from 'tap';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { parseNodeArgs } from './node-options.ts';
import { runNode } from './run-node.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';

exitWhenDone();

const options = (args: string[]) => {
  const cmd = parseNodeArgs(['-f', '/nonexistent', ...args], { program: 'idx-node', version: 't', variant: 'base', cores: 2, write: () => {} });
  if (cmd.command !== 'run') throw new Error('expected run');
  return cmd.options;
};
const logger = createLogger({ level: 'silent', format: 'json' });
const run = (args: string[]) => runNode({ options: options(args), logger, version: 't', env: {}, signal: new AbortController().signal });

t.test('a missing project is named', async (t) => {
  await t.rejects(run([]), { code: 'PROJECT_NOT_FOUND', message: /\/nonexistent does not exist/ });
});

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { parseNodeArgs } from './node-options.ts';
import { runNode } from './run-node.ts';
import { exitWhenDone } from '../../test/support/exit-when-done.ts';

exitWhenDone();

// a folder that surely does not exist: in a fresh temp folder of the test's own
const parent = await mkdtemp(join(tmpdir(), 'idx-run-node-'));
t.teardown(() => rm(parent, { recursive: true, force: true }));
const missing = join(parent, 'missing');

const options = (args: string[]) => {
  const cmd = parseNodeArgs(['-f', missing, ...args], { program: 'idx-node', version: 't', variant: 'base', cores: 2, write: () => {} });
  if (cmd.command !== 'run') throw new Error('expected run');
  return cmd.options;
};
const logger = createLogger({ level: 'silent', format: 'json' });
const run = (args: string[]) => runNode({ options: options(args), logger, version: 't', env: {}, signal: new AbortController().signal });

t.test('a missing project is named', async (t) => {
  await t.rejects(run([]), { code: 'PROJECT_NOT_FOUND', message: `${missing} does not exist` });
});

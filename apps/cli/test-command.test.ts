import { join } from 'node:path';
import t from 'tap';
import { idxNodeTestArgv } from './test-command.ts';

t.test("idx test runs the package's idx-node test with every argument unchanged, in order", async (t) => {
  const root = join('/', 'opt', 'idx');
  t.same(idxNodeTestArgv(root, ['-f', '.', '--test-filter', 'a b', '--unknown-flag', 'extra']), [
    '--no-node-snapshot',
    join(root, 'bin', 'idx-node.js'),
    'test',
    '-f',
    '.',
    '--test-filter',
    'a b',
    '--unknown-flag',
    'extra',
  ]);
  t.same(idxNodeTestArgv(root, []), ['--no-node-snapshot', join(root, 'bin', 'idx-node.js'), 'test']);
});

import { execFile } from 'node:child_process';
import t from 'tap';
import { projectFolder } from './support/idx-cli.ts';
import { BIN, programEnv } from './support/idx-programs.ts';

// `idx test` through the real bin/idx.js: it runs idx-node test as a child process, whose message and exit code
// are idx's. A folder without a project is refused by idx-node before any chain is needed.

t.test('idx test -f <a folder without a project> exits 1 with idx-node test’s message', async (t) => {
  const dir = await projectFolder(t, {}, 'idx-test-command-');
  const run = await new Promise<{ code: number; output: string }>((done) => {
    execFile(process.execPath, ['--no-node-snapshot', BIN('idx'), 'test', '-f', dir], { env: programEnv(), timeout: 120_000 }, (err, stdout, stderr) => {
      done({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, output: stdout + stderr });
    });
  });
  t.equal(run.code, 1);
  t.match(run.output, `ERROR no project manifest in ${dir}`);
  t.notMatch(run.output, /bug in idx/);
});

import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { REPO } from './support/idx-programs.ts';
import { groupTestFiles, NOT_RUN_FOLDERS } from './support/run-together.ts';
import { TEST_GROUPS, type TestGroup } from './support/test-groups.ts';

// `npm test` runs every test file once: the unit tests beside the code in a group's shared process
// (test/together/), the end-to-end files of test/ each in its own. A file no group lists would never run.
const tracked = execFileSync('git', ['ls-files', '*.test.ts'], { cwd: REPO, encoding: 'utf8' })
  .split('\n')
  .filter((f) => f !== '' && !NOT_RUN_FOLDERS.test(f) && !f.startsWith('examples/'));

t.test('every unit test file outside test/ is in exactly one group', async (t) => {
  const groups = (Object.keys(TEST_GROUPS) as TestGroup[]).map((name) => ({ name, files: groupTestFiles(name) }));
  const outside = tracked.filter((f) => !f.startsWith('test/'));
  const inGroups = (f: string) => groups.filter((g) => g.files.includes(f)).map((g) => g.name);
  t.same(
    outside.filter((f) => inGroups(f).length !== 1).map((f) => `${f}: ${inGroups(f).join(', ') || 'no group'}`),
    [],
    'add its folder to a group of test/support/test-groups.ts, once',
  );
  t.ok(outside.length > 100, `${outside.length} files`);
});

t.test('each group has its file in test/together/, and tap runs test/ alone', async (t) => {
  for (const name of Object.keys(TEST_GROUPS)) {
    const file = join(REPO, 'test', 'together', `${name}.test.ts`);
    t.ok(existsSync(file) && readFileSync(file, 'utf8').includes(`runTogether('${name}')`), `test/together/${name}.test.ts runs the group`);
  }
  const include = /^include:\n((?:\s+- .*\n)+)/m.exec(readFileSync(join(REPO, '.taprc'), 'utf8'))?.[1];
  t.same(
    include
      ?.split('\n')
      .filter(Boolean)
      .map((l) => l.trim()),
    ['- "test/**/*.test.ts"'],
    '.taprc includes only test/: a folder outside it runs in its group',
  );
});

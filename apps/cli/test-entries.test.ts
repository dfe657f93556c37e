import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { testEntries } from './test-entries.ts';

t.test('src/test and src/tests *.test.ts become test/<name>.test and tests/<name>.test, as in SubQuery', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-test-entries-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  t.same(await testEntries(root), []);
  await mkdir(join(root, 'src', 'test', 'nested'), { recursive: true });
  await mkdir(join(root, 'src', 'tests'), { recursive: true });
  for (const f of ['test/a.test.ts', 'test/nested/b.test.ts', 'test/helper.ts', 'tests/c.test.ts']) await writeFile(join(root, 'src', f), '');
  t.same(await testEntries(root), [
    { name: 'test/a.test', source: join(root, 'src/test/a.test.ts') },
    { name: 'test/b.test', source: join(root, 'src/test/nested/b.test.ts') },
    { name: 'tests/c.test', source: join(root, 'src/tests/c.test.ts') },
  ]);
});

import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { findTestFiles } from './find-test-files.ts';

t.test('every *.test.js under dist/, in order; --test-filter by name or path', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-test-files-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  t.same(await findTestFiles(root), [], 'no dist/: none');
  await mkdir(join(root, 'dist', 'test'), { recursive: true });
  await mkdir(join(root, 'dist', 'tests', 'deep'), { recursive: true });
  for (const f of ['index.js', 'test/transfer.test.js', 'test/approval.test.js', 'tests/deep/block.test.js', 'test/helper.js'])
    await writeFile(join(root, 'dist', f), '');
  const dist = join(root, 'dist');
  t.same(await findTestFiles(root), [join(dist, 'test/approval.test.js'), join(dist, 'test/transfer.test.js'), join(dist, 'tests/deep/block.test.js')]);
  t.same(await findTestFiles(root, 'transfer'), [join(dist, 'test/transfer.test.js')]);
  t.same(await findTestFiles(root, 'tests/deep'), [join(dist, 'tests/deep/block.test.js')]);
  t.same(await findTestFiles(root, 'nothing'), []);
});

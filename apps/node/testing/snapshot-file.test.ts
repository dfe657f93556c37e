import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { readSnapshotFile, snapshotPath, writeSnapshot } from './snapshot-file.ts';

t.test('snapshots live beside the test source, or at the root of a project without src/', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-snapshots-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const built = join(root, 'dist', 'test', 'transfers.test.js');
  t.equal(snapshotPath(root, built), join(root, 'test', '__snapshots__', 'transfers.snap.json'), 'built only');
  await mkdir(join(root, 'src'));
  t.equal(snapshotPath(root, built), join(root, 'src', 'test', '__snapshots__', 'transfers.snap.json'));
  t.equal(snapshotPath(root, join(root, 'dist', 'tests', 'a.test.js')), join(root, 'src', 'tests', '__snapshots__', 'a.snap.json'));
});

t.test('read: none, entries, or an error naming the file; write keeps the other tests', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-snapshots-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const path = join(dir, '__snapshots__', 'x.snap.json');
  t.equal(await readSnapshotFile(path), undefined);
  const one = { from: 1, to: 2, rows: [] };
  await writeSnapshot(path, undefined, 'b', one);
  await writeSnapshot(path, await readSnapshotFile(path), 'a', { ...one, to: 3 });
  t.same(await readSnapshotFile(path), { a: { ...one, to: 3 }, b: one });
  t.match(await readFile(path, 'utf8'), /^\{\n {2}"a": \{/, 'tests in name order');
  t.same(await readdir(join(dir, '__snapshots__')), ['x.snap.json'], 'nothing left aside');
  await writeFile(path, '{ not json');
  await t.rejects(readSnapshotFile(path), {
    code: 'TEST_SNAPSHOT_INVALID',
    message: new RegExp(`${path.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is not valid JSON`),
  });
  await writeFile(path, '[]');
  await t.rejects(readSnapshotFile(path), { code: 'TEST_SNAPSHOT_INVALID', message: /not an object of snapshots by test name/ });
});

import { cp, mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { openPgliteDir, pgliteTemplate, seedPgliteDir } from './pglite-template.ts';

const parent = await mkdtemp(join(tmpdir(), 'idx-seed-'));
t.teardown(() => rm(parent, { recursive: true, force: true }));

t.test('a seeding interrupted half-way (a kill, a full disk) is cleared and done again', async (t) => {
  const dataDir = join(parent, '.idx-data');
  const template = await pgliteTemplate();
  // what a kill during an older, in-place copy left: some of the database's folders, and a staging copy beside it
  await mkdir(dataDir, { recursive: true });
  await cp(join(template, 'base'), join(dataDir, 'base'), { recursive: true });
  await writeFile(join(dataDir, 'postgresql.conf'), '# cut off');
  await mkdir(join(parent, '.idx-data.seeding-abc123'));
  await seedPgliteDir(dataDir);
  t.same(
    (await readdir(parent)).filter((n) => n.includes('seeding')),
    [],
    'staging copies are removed',
  );
  const db = await openPgliteDir(dataDir);
  await db.exec('create table kept (n int); insert into kept values (42)');
  await db.close();

  // a complete database is never seeded again
  await seedPgliteDir(dataDir);
  const again = await openPgliteDir(dataDir);
  t.same((await again.query<{ n: number }>('select n from kept')).rows, [{ n: 42 }]);
  await again.close();
});

t.test("PGlite runs with 32 MB of shared buffers, not PostgreSQL's 128 MB (resident in its heap from the start)", async (t) => {
  const dataDir = join(parent, 'buffers');
  await seedPgliteDir(dataDir);
  const db = await openPgliteDir(dataDir);
  t.teardown(() => db.close());
  t.same((await db.query('show shared_buffers')).rows, [{ shared_buffers: '32MB' }]);
});

import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { mountTmpfs, noTmpfs } from '../../test/support/tmpfs-mount.ts';
import { privateCacheDir } from '../files/private-cache-dir.ts';
import { openPgliteDir, pgliteTemplate, pgliteTemplateArchive, seedPgliteDir } from './pglite-template.ts';

const runFile = promisify(execFile);
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
  const database = await seedPgliteDir(dataDir);
  t.same(
    (await readdir(parent)).filter((n) => n.includes('seeding')),
    [],
    'staging copies are removed',
  );
  const db = await openPgliteDir(database);
  await db.exec('create table kept (n int); insert into kept values (42)');
  await db.close();

  // a complete database is never seeded again
  t.equal(await seedPgliteDir(dataDir), database);
  const again = await openPgliteDir(database);
  t.same((await again.query<{ n: number }>('select n from kept')).rows, [{ n: 42 }]);
  await again.close();
});

t.test("PGlite runs with 32 MB of shared buffers, not PostgreSQL's 128 MB (resident in its heap from the start)", async (t) => {
  const dataDir = join(parent, 'buffers');
  const db = await openPgliteDir(await seedPgliteDir(dataDir));
  t.teardown(() => db.close());
  t.same((await db.query('show shared_buffers')).rows, [{ shared_buffers: '32MB' }]);
});

t.test('the data folder itself is never removed or replaced: the database is made in its pgdata subfolder', async (t) => {
  const dataDir = join(parent, 'kept', '.idx-data');
  await mkdir(dataDir, { recursive: true });
  // a volume's root often holds files of its own (lost+found on ext4)
  await mkdir(join(dataDir, 'lost+found'));
  const before = (await stat(dataDir)).ino;
  t.equal(await seedPgliteDir(dataDir), join(dataDir, 'pgdata'), 'PGlite opens the subfolder');
  t.equal((await stat(dataDir)).ino, before, 'the same folder, not one renamed into its place');
  t.same((await readdir(dataDir)).sort(), ['lost+found', 'pgdata'], 'no staging copy left, nothing of the volume removed');
  const db = await openPgliteDir(join(dataDir, 'pgdata'));
  await db.exec('create table kept (n int); insert into kept values (7)');
  await db.close();
  t.equal(await seedPgliteDir(dataDir), join(dataDir, 'pgdata'), 'a seeded folder is opened as it is');
  const again = await openPgliteDir(join(dataDir, 'pgdata'));
  t.same((await again.query<{ n: number }>('select n from kept')).rows, [{ n: 7 }]);
  await again.close();
});

t.test('a data folder made by an older idx (the database in the folder itself) is opened in place, not moved', async (t) => {
  const dataDir = join(parent, 'older', '.idx-data');
  await cp(await pgliteTemplate(), dataDir, { recursive: true });
  const db = await openPgliteDir(dataDir);
  await db.exec('create table kept (n int); insert into kept values (9)');
  await db.close();
  t.equal(await seedPgliteDir(dataDir), dataDir);
  t.notOk(existsSync(join(dataDir, 'pgdata')), 'no second database made beside it');
  const again = await openPgliteDir(dataDir);
  t.same((await again.query<{ n: number }>('select n from kept')).rows, [{ n: 9 }]);
  await again.close();
});

t.test('a copy cut short inside the data folder is cleared; a pgdata that is not a database is refused, not removed', async (t) => {
  const dataDir = join(parent, 'cut', '.idx-data');
  await mkdir(join(dataDir, 'pgdata.seeding-abc123'), { recursive: true });
  await seedPgliteDir(dataDir);
  t.same(await readdir(dataDir), ['pgdata']);

  const other = join(parent, 'other', '.idx-data');
  await mkdir(join(other, 'pgdata'), { recursive: true });
  await writeFile(join(other, 'pgdata', 'notes.txt'), 'mine');
  await t.rejects(seedPgliteDir(other), { message: /pgdata holds no database but is not empty \(notes\.txt\); move it away/ });
  t.ok(existsSync(join(other, 'pgdata', 'notes.txt')), 'nothing of the user is removed');
});

t.test('a data folder that is a mount point (a Docker volume) gets its database, and keeps it across opens', { skip: noTmpfs }, async (t) => {
  const project = await mkdtemp(join(tmpdir(), 'idx-seed-mount-'));
  const dataDir = join(project, '.idx-data');
  const unmount = await mountTmpfs(dataDir);
  t.teardown(async () => {
    unmount();
    await rm(project, { recursive: true, force: true });
  });
  const database = await seedPgliteDir(dataDir);
  const db = await openPgliteDir(database);
  await db.exec('create table kept (n int); insert into kept values (3)');
  await db.close();
  const again = await openPgliteDir(await seedPgliteDir(dataDir));
  t.same((await again.query<{ n: number }>('select n from kept')).rows, [{ n: 3 }]);
  await again.close();
  t.same(await readdir(project), ['.idx-data'], 'no copy made beside the mount');
});

t.test('an in-memory database starts from the template’s archive: btree_gist there, writable, its own', async (t) => {
  const archive = await pgliteTemplateArchive();
  const [a, b] = [await openPgliteDir('memory://', archive), await openPgliteDir('memory://', archive)];
  t.teardown(() => Promise.all([a.close(), b.close()]));
  t.same((await a.query("select extname from pg_extension where extname = 'btree_gist'")).rows, [{ extname: 'btree_gist' }]);
  await a.exec('create table kept (n int); insert into kept values (3)');
  t.same((await a.query<{ n: number }>('select n from kept')).rows, [{ n: 3 }]);
  t.same((await b.query("select to_regclass('kept') as t")).rows, [{ t: null }], 'another one opened from it holds nothing of the first');
  t.ok(existsSync(`${await pgliteTemplate()}.tar`), 'kept beside the template for the next one');
});

t.test('the template and its archive are kept where only this user can write: every new database is a copy of them', async (t) => {
  const template = await pgliteTemplate();
  t.equal(dirname(template), await privateCacheDir());
  t.equal((await stat(dirname(template))).mode & 0o022, 0, 'no one else may write beside them');
});

t.test("made on a new machine in a child process: the program that needs it keeps PGlite's initdb heap out of its memory", async (t) => {
  // a program of its own, with a temp folder of its own where no template is yet, that reports its peak RSS
  const temp = await mkdtemp(join(tmpdir(), 'idx-temp-'));
  t.teardown(() => rm(temp, { recursive: true, force: true }));
  const script = [
    `const { pgliteTemplate } = await import(${JSON.stringify(new URL('./pglite-template.ts', import.meta.url).href)});`,
    'const template = await pgliteTemplate();',
    `const hwm = Number(/VmHWM:\\s+(\\d+)/.exec((await import('node:fs')).readFileSync('/proc/self/status', 'utf8'))[1]) / 1024;`,
    'console.log(JSON.stringify({ template, hwm }));',
  ].join('\n');
  const { stdout } = await runFile(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { env: { ...process.env, TMPDIR: temp } });
  const { template, hwm } = JSON.parse(stdout) as { template: string; hwm: number };
  t.ok(template.startsWith(temp) && existsSync(join(template, 'PG_VERSION')), 'the template is made');
  // initdb run in the program itself left it at ~830 MiB (measured); loading PGlite's modules alone takes ~100
  t.ok(hwm < 300, `peak RSS ${hwm.toFixed(0)} MiB, below 300`);
});

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, rm, rmdir, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { createDb } from './create-db.ts';
import { createDiskSpaceGuard, freeBytes } from './disk-space-guard.ts';
import { pgliteTemplate } from './pglite-template.ts';
import { execute } from './sql.ts';

const MiB = 1024 * 1024;

/** A small tmpfs of its own, resized with `resize`, unmounted after the test; undefined when this machine cannot mount. */
async function smallDisk(t: Test, sizeMiB: number): Promise<{ dir: string; resize(sizeMiB: number): void } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const dir = await mkdtemp(join(tmpdir(), 'idx-full-'));
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${sizeMiB}m`, 'tmpfs', dir], { stdio: 'ignore' });
  } catch {
    await rmdir(dir);
    return undefined;
  }
  t.teardown(async () => {
    execFileSync('umount', ['-l', dir], { stdio: 'ignore' });
    await rmdir(dir);
  });
  return { dir, resize: (size) => execFileSync('mount', ['-o', `remount,size=${size}m`, dir], { stdio: 'ignore' }) };
}
const canMount = process.getuid?.() === 0;
const noMount = !canMount && 'needs root to mount a small tmpfs';

t.test(
  'first start on a disk too small for the database: a clear error, no half folder, and a start after space is freed works',
  { skip: noMount },
  async (t) => {
    const disk = await smallDisk(t, 20);
    if (disk === undefined) return void t.pass('skipped: mount -t tmpfs failed here');
    const dataDir = join(disk.dir, 'project', '.idx-data');
    await t.rejects(createDb({ env: {}, dataDir, writerLock: { schema: 'app', program: 'idx-node' } }), {
      code: 'DB_CONNECT_FAILED',
      message: new RegExp(`^cannot create the embedded database in ${dataDir}: ENOSPC: no space left on device.*the disk has space`),
    });
    t.same(await readdir(join(disk.dir, 'project')), [], 'neither the data folder nor the copy in it is left');
    t.equal(await freeBytes(disk.dir), 20 * MiB, 'all space is given back');

    disk.resize(80);
    const db = await createDb({ env: {}, dataDir, writerLock: { schema: 'app', program: 'idx-node' } });
    t.same(await execute(db.kysely, 'select 1 as one'), [{ one: 1 }]);
    await db.close();
  },
);

t.test('a data folder cut short by an older idx, or holding files of the user, gets its database in pgdata; nothing there is removed', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-seed-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // what an older idx copying in place left when killed: some of the database's folders, no PG_VERSION
  const cut = join(dir, 'a', '.idx-data');
  await cp(await pgliteTemplate(), cut, { recursive: true });
  await rm(join(cut, 'PG_VERSION'));
  await rm(join(cut, 'base'), { recursive: true });
  const db = await createDb({ env: {}, dataDir: cut });
  t.same(await execute(db.kysely, 'select 1 as one'), [{ one: 1 }]);
  await db.close();
  t.ok(existsSync(join(cut, 'pgdata', 'PG_VERSION')));

  const mine = join(dir, 'b');
  await mkdir(mine);
  await writeFile(join(mine, 'thesis.tex'), 'mine');
  const other = await createDb({ env: {}, dataDir: mine });
  t.same(await execute(other.kysely, 'select 1 as one'), [{ one: 1 }]);
  await other.close();
  t.same((await readdir(mine)).sort(), ['pgdata', 'thesis.tex'], 'nothing of the user is removed');
});

t.test('below the free-space margin a flush is refused with DISK_FULL; freed space lets it go on', { skip: noMount }, async (t) => {
  const disk = await smallDisk(t, 16);
  if (disk === undefined) return void t.pass('skipped: mount -t tmpfs failed here');
  const guard = createDiskSpaceGuard({ dir: disk.dir, minFreeBytes: 4 * MiB });
  t.teardown(() => guard.close());
  await guard.check();
  await writeFile(join(disk.dir, 'filler'), Buffer.alloc(13 * MiB));
  await t.rejects(guard.check(), {
    code: 'DISK_FULL',
    message: `only 3.0 MiB free on the disk of the embedded database in ${disk.dir}; idx stops below 4.0 MiB so that the database never runs out of space mid-write. Free some space and start again: indexing resumes after the last committed block.`,
  });
  await rm(join(disk.dir, 'filler'));
  await guard.check();
});

t.test(
  'PGlite spinning on a full disk: the watchdog kills the process with a message, and the data opens after space is freed',
  { skip: noMount },
  async (t) => {
    const disk = await smallDisk(t, 60);
    if (disk === undefined) return void t.pass('skipped: mount -t tmpfs failed here');
    const dataDir = join(disk.dir, '.idx-data');
    const scriptDir = await mkdtemp(join(tmpdir(), 'idx-fill-'));
    t.teardown(() => rm(scriptDir, { recursive: true, force: true }));
    const script = join(scriptDir, 'fill.mts');
    const here = (f: string) => JSON.stringify(new URL(f, import.meta.url).href);
    // A writer that ignores the margin (as one oversized flush would): PGlite fills the disk and spins.
    await writeFile(
      script,
      `import { createDb } from ${here('./create-db.ts')};
import { createDiskSpaceGuard } from ${here('./disk-space-guard.ts')};
import { execute } from ${here('./sql.ts')};
const db = await createDb({ env: {}, dataDir: ${JSON.stringify(dataDir)} });
createDiskSpaceGuard({ dir: ${JSON.stringify(dataDir)}, minFreeBytes: 32 * 1024 * 1024, stallMs: 1500 });
await execute(db.kysely, 'create table big (id serial primary key, t text)');
await execute(db.kysely, "insert into big (t) values ('committed')");
for (;;) await execute(db.kysely, "insert into big (t) select (select string_agg(md5(random()::text), '') from generate_series(1, 300)) from generate_series(1, 200)");
`,
    );
    const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'ignore', 'pipe'] });
    t.teardown(() => void child.kill('SIGKILL'));
    let stderr = '';
    child.stderr!.on('data', (c) => (stderr += String(c)));
    const started = Date.now();
    const [code, signal] = (await once(child, 'exit')) as [number | null, string | null];
    t.equal(signal, 'SIGKILL', `killed (exit code ${code})`);
    t.match(
      stderr,
      new RegExp(
        `error: \\[DISK_FULL\\] the disk of the embedded database in ${dataDir} is full \\(\\d+\\.\\d MiB free\\) and the database stopped responding for 2 s: killing this process`,
      ),
    );
    t.ok(Date.now() - started < 60_000, `stopped in ${Date.now() - started} ms`);

    disk.resize(300);
    const db = await createDb({ env: {}, dataDir, writerLock: { schema: 'app', program: 'idx-node' } });
    const [row] = await execute<{ t: string }>(db.kysely, `select t from big where id = 1`);
    t.equal(row?.t, 'committed', 'committed rows survive');
    await execute(db.kysely, `insert into big (t) values ('after')`);
    await db.close();
  },
);

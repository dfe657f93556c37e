import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { acquireFileLock, LOCK_EXPIRY_MS, LOCK_FILE } from './acquire-writer-lock.ts';
import { createDb, type CreateDbOptions } from './create-db.ts';
import { execute } from './sql.ts';
import { freshPgliteDir, uniqueSchemaName } from '../../test/support/test-backends.ts';

const pgEnv = process.env.DB_HOST ? process.env : undefined;
const createDbUrl = new URL('./create-db.ts', import.meta.url).href;

/** A real writer in another process: it takes the lock, says so, and holds it until killed. */
async function startHolder(t: Test, options: Pick<CreateDbOptions, 'env' | 'dataDir' | 'writerLock'>): Promise<ChildProcess> {
  const dir = await mkdtemp(join(tmpdir(), 'idx-lock-holder-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const script = join(dir, 'holder.mts');
  await writeFile(
    script,
    `import { createDb } from ${JSON.stringify(createDbUrl)};\n` +
      `await createDb(${JSON.stringify(options)});\n` +
      `process.stdout.write('locked\\n');\n` +
      `setInterval(() => {}, 60_000);\n`,
  );
  const child = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => void child.kill('SIGKILL'));
  let out = '';
  for await (const chunk of child.stdout!) {
    out += String(chunk);
    if (out.includes('locked')) break;
  }
  if (!out.includes('locked')) throw new Error(`the lock holder exited without taking the lock: ${out}`);
  return child;
}

async function kill9(child: ChildProcess): Promise<void> {
  const exited = once(child, 'exit');
  child.kill('SIGKILL');
  await exited;
}

t.test('PGlite: a second writer is refused naming the first; after SIGKILL of the first a restart takes over', async (t) => {
  const dir = await freshPgliteDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const writerLock = { schema: 'app', program: 'idx-node' };
  const holder = await startHolder(t, { env: {}, dataDir: dir, writerLock });
  const owner = JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8'));
  t.match(owner, { pid: holder.pid, host: hostname(), program: 'idx-node' });

  await t.rejects(createDb({ env: {}, dataDir: dir, writerLock }), {
    code: 'DB_LOCKED',
    message: new RegExp(
      `^the embedded database in ${dir} is in use by idx-node \\(pid ${holder.pid} on ${hostname()}, started .*\\): only one idx process may write it`,
    ),
  });
  // the refused writer left the holder's lock alone
  t.equal(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')).pid, holder.pid);

  await kill9(holder);
  const db = await createDb({ env: {}, dataDir: dir, writerLock: { schema: 'app', program: 'idx-node reindex' } });
  t.match(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')), { pid: process.pid, program: 'idx-node reindex' });
  // in this same process, too, a second writer is refused
  await t.rejects(createDb({ env: {}, dataDir: dir, writerLock }), { code: 'DB_LOCKED', message: /in use by this same process/ });
  await db.close();
  await t.rejects(readFile(join(dir, LOCK_FILE)), { code: 'ENOENT' }, 'closing removes the lock file');
});

// A second PGlite on a folder reads the pages it has cached, never the other's commits: a test that
// kept a reader open across a node run read a rewound branch's rows as if the rewind had not happened.
t.test(
  'PGlite: a reader opens the folder alone too; a writer, in this process or another, is refused while it reads, and a reader while a writer writes',
  async (t) => {
    const dir = await freshPgliteDir();
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const writerLock = { schema: 'app', program: 'idx-node' };
    const reader = await createDb({ env: {}, dataDir: dir, applicationName: 'a test reading it' });
    t.match(JSON.parse(await readFile(join(dir, LOCK_FILE), 'utf8')), { pid: process.pid, program: 'a test reading it' });
    await t.rejects(createDb({ env: {}, dataDir: dir, writerLock }), { code: 'DB_LOCKED', message: /in use by this same process/ });
    await t.rejects(createDb({ env: {}, dataDir: dir }), { code: 'DB_LOCKED', message: /in use by this same process/ }, 'a second reader as well');
    await reader.close();

    const holder = await startHolder(t, { env: {}, dataDir: dir, writerLock });
    await t.rejects(createDb({ env: {}, dataDir: dir }), {
      code: 'DB_LOCKED',
      message: new RegExp(`is in use by idx-node \\(pid ${holder.pid} on .*idx-query can read the database while the node runs`),
    });
    await kill9(holder);
    const after = await createDb({ env: {}, dataDir: dir });
    await after.close();
  },
);

t.test('PGlite: lock files of dead or reused pids are stale; a live holder on another host is not', async (t) => {
  // The lock file alone (createDb takes it, as the test above shows): no database needs opening.
  const dir = await mkdtemp(join(tmpdir(), 'idx-lock-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, LOCK_FILE);

  // a pid that no longer runs (the highest pid the kernel hands out is far below this)
  await writeFile(file, JSON.stringify({ pid: 4_194_000, host: hostname(), startedAt: new Date().toISOString(), program: 'idx-node' }));
  let lock = await acquireFileLock(dir, 'idx-node');
  await lock.release();

  // pid 1 is alive but started after this lock was written (a reboot reused the pid): the lock's process is gone
  await writeFile(file, JSON.stringify({ pid: 1, host: hostname(), startedAt: '2020-01-01T00:00:00.000Z', program: 'idx-node' }));
  lock = await acquireFileLock(dir, 'idx-node');
  await lock.release();

  // another host or container: alive while it refreshes the file, abandoned once it stops
  await writeFile(file, JSON.stringify({ pid: 1, host: 'other-host', startedAt: '2026-01-01T00:00:00.000Z', program: 'idx-node' }));
  await t.rejects(acquireFileLock(dir, 'idx-node'), {
    code: 'DB_LOCKED',
    message: `the embedded database in ${dir} is in use by idx-node (pid 1 on other-host, started 2026-01-01T00:00:00.000Z): only one idx process may write it. That process runs on another host or container; stop it (its lock lapses 30 s after it stops).`,
  });
  const lapsed = new Date(Date.now() - LOCK_EXPIRY_MS - 1000);
  await utimes(file, lapsed, lapsed);
  lock = await acquireFileLock(dir, 'idx-node');
  await lock.release();
});

t.test('PGlite: a held lock is refreshed by a thread of its own, so it never lapses while its holder lives', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'idx-lock-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const file = join(dir, LOCK_FILE);
  const lock = await acquireFileLock(dir, 'idx-node', { refreshMs: 50 });
  const old = new Date(Date.now() - LOCK_EXPIRY_MS - 1000);
  await utimes(file, old, old);
  // the main thread busy for a while, as PGlite's wasm keeps it: the refresh goes on
  const until = Date.now() + 300;
  while (Date.now() < until) Math.sqrt(Math.random());
  for (let i = 0; i < 60 && Date.now() - (await stat(file)).mtimeMs > 1000; i++) await new Promise((r) => setTimeout(r, 50));
  t.ok(Date.now() - (await stat(file)).mtimeMs < 1000, 'refreshed');
  await t.rejects(acquireFileLock(dir, 'idx-node'), { code: 'DB_LOCKED' });
  await lock.release();
});

t.test(
  'PostgreSQL: one writer per schema, per chain with --multi-chain; the lock dies with a killed process',
  { skip: pgEnv === undefined && 'DB_HOST is not set' },
  async (t) => {
    const env = pgEnv!;
    const schema = uniqueSchemaName();
    const holder = await startHolder(t, {
      env: { DB_HOST: env.DB_HOST, DB_USER: env.DB_USER, DB_PORT: env.DB_PORT, DB_PASS: env.DB_PASS, DB_DATABASE: env.DB_DATABASE },
      writerLock: { schema, program: 'idx-node' },
    });

    await t.rejects(createDb({ env, writerLock: { schema, program: 'idx-node' } }), {
      code: 'DB_LOCKED',
      message: new RegExp(
        `^schema "${schema}" on PostgreSQL at .* is being written by idx-node pid ${holder.pid} on ${hostname()} \\(server pid \\d+.*connected since .*\\): only one idx process may write it`,
      ),
    });
    // another schema is free
    const other = await createDb({ env, writerLock: { schema: `${schema}_other`, program: 'idx-node' } });
    await other.close();

    await kill9(holder);
    // the server notices the dead client's closed socket at once; allow it a moment
    let db;
    for (let i = 0; ; i++) {
      try {
        db = await createDb({ env, writerLock: { schema, program: 'idx-node' } });
        break;
      } catch (err) {
        if (i >= 50 || (err as { code?: string }).code !== 'DB_LOCKED') throw err;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    await db.close();

    // --multi-chain: chains share the schema, each chain runs once, and a whole-schema writer waits for all
    const a = await createDb({ env, writerLock: { schema, chainId: '1', program: 'idx-node' } });
    const b = await createDb({ env, writerLock: { schema, chainId: '137', program: 'idx-node' } });
    await t.rejects(createDb({ env, writerLock: { schema, chainId: '1', program: 'idx-node' } }), {
      code: 'DB_LOCKED',
      message: new RegExp(`^chain 1 in schema "${schema}" on PostgreSQL`),
    });
    await t.rejects(createDb({ env, writerLock: { schema, program: 'idx-node force-clean' } }), {
      code: 'DB_LOCKED',
      message: new RegExp(`^schema "${schema}" on PostgreSQL .* is being written by idx-node pid ${process.pid}`),
    });
    await a.close();
    await b.close();
    const clean = await createDb({ env, writerLock: { schema, program: 'idx-node force-clean' } });
    await t.rejects(createDb({ env, writerLock: { schema, chainId: '1', program: 'idx-node' } }), { code: 'DB_LOCKED' });
    await clean.close();
  },
);

t.test(
  'PostgreSQL: a writer whose lock connection breaks is told, so it stops before another writer starts',
  { skip: pgEnv === undefined && 'DB_HOST is not set' },
  async (t) => {
    const env = pgEnv!;
    const schema = uniqueSchemaName();
    let lost: Error | undefined;
    const db = await createDb({ env, writerLock: { schema, program: 'idx-lost-test', onLost: (err) => (lost = err) } });
    t.teardown(() => db.close());
    await execute(db.kysely, `select pg_terminate_backend(pid) from pg_stat_activity where application_name = $1`, [
      `idx-lost-test pid ${process.pid} on ${hostname()}`.slice(0, 63),
    ]);
    for (let i = 0; i < 100 && lost === undefined; i++) await new Promise((r) => setTimeout(r, 20));
    t.match(lost, {
      code: 'DB_LOCK_LOST',
      message: new RegExp(
        `^the connection holding the writer lock of schema "${schema}" on PostgreSQL at .* broke .*; stopping so that two writers never overlap`,
      ),
    });
    // the lock went with the connection: another writer may take it now
    const next = await createDb({ env, writerLock: { schema, program: 'idx-node' } });
    await next.close();
  },
);

import { createHash, randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import pg from 'pg';
import { IdxError } from '../../domain/errors.ts';

/**
 * One database, one writer: two nodes on one PGlite folder corrupt it, two on one PostgreSQL
 * schema overwrite each other's rows. A writer takes this lock before touching anything; readers
 * of PostgreSQL (idx-query) never do. A PGlite folder is opened by one process at a time, readers
 * included (createDb takes its lock file for every open): a second open reads stale pages.
 *
 * - PGlite: a lock file in the data folder naming the holder (pid, host, start time), its mtime
 *   refreshed by a worker thread (so a busy main thread does not let it lapse). It is stale, and
 *   taken over, when its process is gone (same host: pid dead or reused by a later process) or
 *   when it was not refreshed for LOCK_EXPIRY_MS (a holder in another container or on another host).
 * - PostgreSQL: a session advisory lock keyed by a hash of the schema, held on a connection of its
 *   own for the writer's life, so it dies with the process. With `--multi-chain` several chains
 *   share a schema: each takes the schema's key shared and its chain's key exclusive, so one
 *   chain runs once and a whole-schema writer (a single-chain node, force-clean) excludes them all.
 */
export const LOCK_FILE = 'idx-writer.lock';

export interface WriterLock {
  /** whom the lock names, for logs: `idx-node pid 12 on host` */
  readonly holder: string;
  release(): Promise<void>;
}

interface LockOwner {
  pid: number;
  host: string;
  /** ISO time the process took the lock */
  startedAt: string;
  program: string;
}

/** A lock file not refreshed for this long is abandoned, whoever wrote it. */
export const LOCK_EXPIRY_MS = 30_000;
const REFRESH_MS = 5_000;

// A plain script run in a worker: touches the lock file while it is still ours.
const REFRESHER = `
const { workerData } = require('node:worker_threads');
const { readFileSync, utimesSync } = require('node:fs');
setInterval(() => {
  try {
    if (readFileSync(workerData.file, 'utf8') !== workerData.text) return;
    const now = new Date();
    utimesSync(workerData.file, now, now);
  } catch {}
}, workerData.everyMs);
`;

const ownerText = (o: LockOwner) => `${o.program} (pid ${o.pid} on ${o.host}, started ${o.startedAt})`;
// Lock files this process holds: a second open in the same process is refused like any other.
const heldHere = new Set<string>();

/** Takes the lock file of a PGlite data folder, which must exist. `refreshMs` for tests. */
export async function acquireFileLock(dataDir: string, program: string, { refreshMs = REFRESH_MS } = {}): Promise<WriterLock> {
  const file = join(dataDir, LOCK_FILE);
  const me: LockOwner = { pid: process.pid, host: hostname(), startedAt: new Date().toISOString(), program };
  const text = `${JSON.stringify(me)}\n`;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (heldHere.has(file)) throw lockedFile(dataDir, file, me, 'this same process');
    // Written aside, then linked: the lock file appears complete or not at all, and link() never replaces.
    const temp = `${file}.${process.pid}.${randomBytes(4).toString('hex')}`;
    await writeFile(temp, text);
    try {
      await link(temp, file);
      heldHere.add(file);
      const refresher = new Worker(REFRESHER, { eval: true, workerData: { file, text, everyMs: refreshMs } });
      refresher.unref();
      return {
        holder: ownerText(me),
        async release() {
          heldHere.delete(file);
          await refresher.terminate();
          const now = await readOwner(file);
          if (now !== undefined && now.pid === me.pid && now.startedAt === me.startedAt) await rm(file, { force: true });
        },
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    } finally {
      await rm(temp, { force: true });
    }
    const owner = await readOwner(file);
    if (owner === undefined) {
      // Unreadable (ours are always whole: not idx's), or removed meanwhile: drop it and try again.
      await rm(file, { force: true });
      continue;
    }
    if (!(await isStale(owner, file))) throw lockedFile(dataDir, file, owner);
    // Moved aside before removal: of two restarts taking over at once, only one moves the stale file.
    const aside = `${file}.stale.${process.pid}`;
    try {
      await rename(file, aside);
    } catch {
      continue;
    }
    const moved = await readOwner(aside);
    if (moved !== undefined && !(await isStale(moved, aside))) {
      // Another restart took over between our read and the move: give its lock back.
      await rename(aside, file).catch(() => undefined);
      throw lockedFile(dataDir, file, moved);
    }
    await rm(aside, { force: true });
  }
  throw new IdxError('DB_LOCKED', `cannot take the writer lock ${file}: it keeps changing; is another idx process starting on ${dataDir}?`);
}

function lockedFile(dataDir: string, file: string, owner: LockOwner | undefined, who?: string): IdxError {
  const holder = who ?? ownerText(owner!);
  const remote = owner !== undefined && owner.host !== hostname();
  return new IdxError(
    'DB_LOCKED',
    `the embedded database in ${dataDir} is in use by ${holder}: only one idx process may write it. ` +
      (remote
        ? `That process runs on another host or container; stop it (its lock lapses ${LOCK_EXPIRY_MS / 1000} s after it stops).`
        : 'Stop that process first (idx-query can read the database while the node runs).'),
  );
}

async function readOwner(file: string): Promise<LockOwner | undefined> {
  try {
    const o = JSON.parse(await readFile(file, 'utf8')) as Partial<LockOwner>;
    if (typeof o.pid !== 'number' || typeof o.host !== 'string' || typeof o.startedAt !== 'string') return undefined;
    return { pid: o.pid, host: o.host, startedAt: o.startedAt, program: typeof o.program === 'string' ? o.program : 'an idx process' };
  } catch {
    return undefined;
  }
}

/** A lock not refreshed lately, or of this host with its process ended (or its pid now another, later process's). */
async function isStale(owner: LockOwner, file: string): Promise<boolean> {
  const touched = await stat(file).then(
    (s) => s.mtimeMs,
    () => undefined,
  );
  if (touched !== undefined && Date.now() - touched > LOCK_EXPIRY_MS) return true;
  if (owner.host !== hostname()) return false;
  if (owner.pid === process.pid) return true; // not ours (heldHere says), so an earlier life of this pid (e.g. pid 1 in a container)
  if (!isAlive(owner.pid)) return true;
  const started = processStartTime(owner.pid);
  const locked = Date.parse(owner.startedAt);
  return started !== undefined && Number.isFinite(locked) && started > locked + 2000;
}

export function isAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** When a process started (ms since epoch), from /proc on Linux; undefined elsewhere. */
function processStartTime(pid: number): number | undefined {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Field 22 (starttime, in clock ticks since boot) counted after the parenthesised command name.
    const ticks = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
    const btime = Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1]);
    if (!Number.isFinite(ticks) || !Number.isFinite(btime)) return undefined;
    return btime * 1000 + (ticks / 100) * 1000; // USER_HZ is 100 on Linux
  } catch {
    return undefined;
  }
}

export interface AdvisoryLockOptions {
  /** the database schema written */
  schema: string;
  /** with `--multi-chain`: the chain written into the shared schema */
  chainId?: string;
  program: string;
  /** `PostgreSQL at host:5432/db`, for messages */
  description: string;
  /** the lock's connection broke: the lock is gone and another writer may start */
  onLost?: (err: IdxError) => void;
}

/** A 64-bit advisory lock key for a name (signed, as PostgreSQL's bigint). */
export function advisoryKey(name: string): bigint {
  return createHash('sha256').update(`idx-writer:${name}`).digest().readBigInt64BE(0);
}

/** Takes the advisory lock of a schema (and chain) on a connection of its own, held until release. */
export async function acquireAdvisoryLock(connection: pg.ClientConfig, options: AdvisoryLockOptions): Promise<WriterLock> {
  const holder = `${options.program} pid ${process.pid} on ${hostname()}`;
  // application_name names us to the next writer that finds the lock taken (63 bytes at most).
  const client = new pg.Client({ ...connection, application_name: holder.slice(0, 63) });
  let released = false;
  client.on('error', (err) => {
    if (!released)
      options.onLost?.(
        new IdxError(
          'DB_LOCK_LOST',
          `the connection holding the writer lock of schema "${options.schema}" on ${options.description} broke (${err.message}); stopping so that two writers never overlap`,
          { cause: err },
        ),
      );
  });
  await client.connect();
  try {
    const schemaKey = advisoryKey(options.schema);
    if (options.chainId === undefined) {
      await tryLock(client, schemaKey, false, options, `schema "${options.schema}"`);
    } else {
      await tryLock(client, schemaKey, true, options, `schema "${options.schema}"`);
      await tryLock(client, advisoryKey(`${options.schema}\u0000${options.chainId}`), false, options, `chain ${options.chainId} in schema "${options.schema}"`);
    }
  } catch (err) {
    released = true;
    await client.end().catch(() => undefined);
    throw err;
  }
  return {
    holder,
    async release() {
      if (released) return;
      released = true;
      // Ending the session releases its advisory locks.
      await client.end().catch(() => undefined);
    },
  };
}

async function tryLock(client: pg.Client, key: bigint, shared: boolean, options: AdvisoryLockOptions, what: string): Promise<void> {
  const fn = shared ? 'pg_try_advisory_lock_shared' : 'pg_try_advisory_lock';
  const { rows } = await client.query<{ ok: boolean }>(`select ${fn}($1::bigint) as ok`, [key.toString()]);
  if (rows[0]?.ok) return;
  const unsigned = BigInt.asUintN(64, key);
  const { rows: holders } = await client.query<{ pid: number; application_name: string | null; client_addr: string | null; backend_start: Date | null }>(
    `select a.pid, a.application_name, a.client_addr::text as client_addr, a.backend_start
       from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.objsubid = 1 and l.classid = $1::oid and l.objid = $2::oid and l.pid <> pg_backend_pid()`,
    [(unsigned >> 32n).toString(), (unsigned & 0xffffffffn).toString()],
  );
  const named = holders.map((h) =>
    [
      h.application_name ? h.application_name : 'a session',
      `(server pid ${h.pid}`,
      h.client_addr ? `from ${h.client_addr}` : '',
      h.backend_start ? `connected since ${h.backend_start.toISOString()})` : ')',
    ]
      .filter((s) => s !== '')
      .join(' '),
  );
  const by = named.length === 0 ? 'another session' : named.join(', ');
  throw new IdxError(
    'DB_LOCKED',
    `${what} on ${options.description} is being written by ${by}: only one idx process may write it. Stop that process first, or give this one another --db-schema.`,
  );
}

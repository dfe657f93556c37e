import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { PGlite } from '@electric-sql/pglite';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { IdxError } from '../../domain/errors.ts';
import { acquireAdvisoryLock, acquireFileLock, type WriterLock } from './acquire-writer-lock.ts';
import { poolWithCopyIn } from './copy-in.ts';
import { createPgliteDialect } from './pglite-dialect.ts';
import { loadPgliteCode, openPgliteDir, pgliteTemplateArchive, seedPgliteDir } from './pglite-template.ts';
import { execute } from './sql.ts';
import { utcTimestampTypes } from './utc-timestamps.ts';

export interface Db {
  readonly kind: 'postgres' | 'pglite';
  readonly kysely: Kysely<any>;
  /** where the data is, for messages: `PostgreSQL at host:5432/db` or `PGlite in /path` */
  readonly description: string;
  /** the embedded database itself, when `kind` is `pglite`: for LISTEN and for serving it to other processes */
  readonly pglite?: PGlite;
  /** with `pglite`: how many wait for its one session (the socket server lets them go first) */
  readonly pgliteWaiting?: () => number;
  /** PGlite: runs a socket client's turn holding the session, after the node's waiting queries */
  readonly pgliteInBackground?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** how to open one more connection outside the pool, e.g. for LISTEN (PostgreSQL only) */
  readonly connection?: pg.ClientConfig;
  close(): Promise<void>;
}

export interface DbSslFiles {
  /** `--pg-ca`: the server's certificate (.pem) */
  ca?: string;
  /** `--pg-cert`: the client certificate (.pem) */
  cert?: string;
  /** `--pg-key`: the client key (.key) */
  key?: string;
}

export interface CreateDbOptions {
  /** `DB_USER`, `DB_PASS`, `DB_DATABASE`, `DB_HOST`, `DB_PORT`; PGlite when `DB_HOST` is unset */
  env: Readonly<Record<string, string | undefined>>;
  /** the PGlite data folder (the node passes `<project>/.idx-data`); `memory://` keeps it in memory */
  dataDir?: string;
  ssl?: DbSslFiles;
  /** pool size on PostgreSQL (default 10) */
  maxConnections?: number;
  /** PostgreSQL cancels statements running longer (idx-query's --query-timeout); not applied on PGlite */
  statementTimeoutMs?: number;
  /** the password asked each time a connection opens, instead of DB_PASS (the embedded database's socket changes it with each node run) */
  password?: () => Promise<string>;
  applicationName?: string;
  /** errors of idle pooled connections, which would otherwise crash the process */
  onPoolError?: (err: Error) => void;
  /**
   * Writers (idx-node, its force-clean and reindex, idx-shard) take the writer lock before touching
   * the database: the PGlite folder's lock file, or PostgreSQL advisory locks of the schema (and
   * chain). A second writer is refused with DB_LOCKED naming the first. Readers leave it unset; on
   * PGlite they take the folder's lock all the same (see openPglite), named by `applicationName`.
   */
  writerLock?: {
    schema: string;
    /** `--multi-chain`: the chain this writer owns in the shared schema */
    chainId?: string;
    program: string;
    /** the advisory lock's connection broke: stop writing */
    onLost?: (err: IdxError) => void;
  };
}

/** Lowest `server_version_num` we run on (PostgreSQL 12 or newer, docs/usage.md). */
export const MIN_SERVER_VERSION = 120000;

/**
 * Connects to PostgreSQL, or opens the embedded PGlite when `DB_HOST` is unset, then checks the
 * server version and enables `btree_gist`.
 */
export async function createDb(options: CreateDbOptions): Promise<Db> {
  const host = options.env.DB_HOST;
  const db = host === undefined || host === '' ? await openPglite(options) : await openPostgres(host, options);
  try {
    await prepareDatabase(db.kysely, db.description);
  } catch (err) {
    await db.close().catch(() => {});
    throw err;
  }
  return db;
}

async function openPglite(options: CreateDbOptions): Promise<Db> {
  if (options.dataDir === undefined) {
    throw new IdxError('DB_CONFIG_INVALID', 'DB_HOST is not set, so idx uses its embedded database, but no data folder was given for it');
  }
  const dataDir = options.dataDir.startsWith('memory://') ? options.dataDir : resolve(options.dataDir);
  const description = `PGlite in ${dataDir}`;
  let pglite: PGlite;
  let lock: WriterLock | undefined;
  // the folder PGlite opens: the data folder's `pgdata` (or, made by an older idx, the data folder itself)
  let database = dataDir;
  // loading overlaps the seeding; a failure is reported where the folder is opened
  const code = loadPgliteCode();
  code.catch(() => undefined);
  try {
    if (!dataDir.startsWith('memory://')) database = await seedPgliteDir(dataDir);
  } catch (err) {
    throw new IdxError(
      'DB_CONNECT_FAILED',
      `cannot create the embedded database in ${dataDir}: ${(err as Error).message}. Check that the folder is writable and that the disk has space.`,
      { cause: err },
    );
  }
  // Before PGlite opens the folder: opening alone writes to it. Readers too: a second PGlite on a
  // folder serves the pages it has read from its own memory and never sees the other's commits
  // (two reorg tests read a rewound branch's rows that way), so one open at a time, whoever opens.
  if (!dataDir.startsWith('memory://')) {
    const program = options.writerLock?.program ?? options.applicationName ?? 'a program reading it';
    lock = await acquireFileLock(dataDir, program).catch((err: unknown) => {
      if (err instanceof IdxError) throw err;
      throw new IdxError(
        'DB_CONNECT_FAILED',
        `cannot write the lock file in ${dataDir}: ${(err as Error).message}. Check that the folder is writable and that the disk has space.`,
        { cause: err },
      );
    });
  }
  try {
    // in memory: from the template's archive, not initdb (seconds) each time; initdb when no archive can be made
    const archive = dataDir.startsWith('memory://') ? await pgliteTemplateArchive().catch(() => undefined) : undefined;
    pglite = await openPgliteDir(database, archive, code);
  } catch (err) {
    await lock?.release();
    throw new IdxError(
      'DB_CONNECT_FAILED',
      `cannot open the embedded database in ${dataDir}: ${(err as Error).message}. Check that the folder is writable and that no other idx process is using it.`,
      { cause: err },
    );
  }
  const dialect = createPgliteDialect(pglite);
  const kysely = new Kysely<any>({ dialect });
  return {
    kind: 'pglite',
    kysely,
    description,
    pglite,
    pgliteWaiting: dialect.waiting,
    pgliteInBackground: dialect.inBackground,
    async close() {
      try {
        await kysely.destroy();
      } finally {
        await lock?.release();
      }
    },
  };
}

async function openPostgres(host: string, options: CreateDbOptions): Promise<Db> {
  const { env } = options;
  const port = parsePort(env.DB_PORT);
  const database = env.DB_DATABASE || 'postgres';
  const user = env.DB_USER || 'postgres';
  const where = { host, port, database, user };
  const description = `PostgreSQL at ${host}:${port}/${database}`;
  const ssl = await readSslFiles(options.ssl);
  const pool = new pg.Pool({
    host,
    port,
    database,
    user,
    password: options.password ?? env.DB_PASS,
    max: options.maxConnections ?? 10,
    ...(options.statementTimeoutMs !== undefined && { statement_timeout: options.statementTimeoutMs }),
    ssl,
    application_name: options.applicationName ?? 'idx',
    connectionTimeoutMillis: 15_000,
    types: utcTimestampTypes,
  });
  pool.on('error', (err) => options.onPoolError?.(err));
  try {
    const client = await pool.connect();
    client.release();
  } catch (err) {
    await pool.end().catch(() => {});
    throw connectionError(err, where);
  }
  const kysely = new Kysely<any>({ dialect: new PostgresDialect({ pool: poolWithCopyIn(pool) }) });
  const connection: pg.ClientConfig = {
    host,
    port,
    database,
    user,
    password: options.password ?? env.DB_PASS,
    ssl,
    application_name: options.applicationName ?? 'idx',
  };
  let lock: WriterLock | undefined;
  if (options.writerLock !== undefined) {
    try {
      lock = await acquireAdvisoryLock(connection, { ...options.writerLock, description });
    } catch (err) {
      await kysely.destroy().catch(() => undefined);
      throw err;
    }
  }
  return {
    kind: 'postgres',
    kysely,
    description,
    connection,
    async close() {
      try {
        await kysely.destroy();
      } finally {
        await lock?.release();
      }
    },
  };
}

function parsePort(value: string | undefined): number {
  if (value === undefined || value === '') return 5432;
  const port = Number(value);
  if (!Number.isInteger(port) || port <= 0 || port > 65535) {
    throw new IdxError('DB_CONFIG_INVALID', `DB_PORT must be a port number (1-65535), got "${value}"`);
  }
  return port;
}

async function readSslFiles(files: DbSslFiles | undefined): Promise<pg.PoolConfig['ssl']> {
  if (files === undefined || (files.ca === undefined && files.cert === undefined && files.key === undefined)) return undefined;
  const read = async (flag: string, path: string | undefined) => {
    if (path === undefined) return undefined;
    try {
      return await readFile(path, 'utf8');
    } catch (err) {
      const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : `cannot be read (${(err as Error).message})`;
      throw new IdxError('DB_SSL_FILE', `${flag} file ${resolve(path)} ${reason}`, { cause: err });
    }
  };
  const [ca, cert, key] = await Promise.all([read('--pg-ca', files.ca), read('--pg-cert', files.cert), read('--pg-key', files.key)]);
  if ((cert === undefined) !== (key === undefined)) {
    throw new IdxError('DB_CONFIG_INVALID', 'a client certificate needs both --pg-cert and --pg-key');
  }
  // The server's certificate is always verified: against --pg-ca when given, else the system's CAs.
  return { ca, cert, key, rejectUnauthorized: true };
}

interface Where {
  host: string;
  port: number;
  database: string;
  user: string;
}

/** A connection failure told in the user's terms: where we tried and what to check. */
export function connectionError(err: unknown, where: Where): IdxError {
  const e = err as { code?: string; message?: string };
  const at = `PostgreSQL at ${where.host}:${where.port}`;
  const reason = e.message ?? String(err);
  switch (e.code) {
    case 'ECONNREFUSED':
    case 'ETIMEDOUT':
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
    case 'ECONNRESET':
      return new IdxError('DB_CONNECT_FAILED', `cannot reach ${at} (${reason}). Check that the server is running and that DB_HOST and DB_PORT point to it.`, {
        cause: err,
        retryable: true,
      });
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return new IdxError('DB_CONNECT_FAILED', `cannot resolve the database host "${where.host}" (${reason}). Check DB_HOST.`, {
        cause: err,
        retryable: e.code === 'EAI_AGAIN',
      });
    case '28P01':
    case '28000':
      return new IdxError(
        'DB_AUTH_FAILED',
        `${at} refused user "${where.user}" on database "${where.database}": ${reason}. Check DB_USER and DB_PASS (and the server's pg_hba.conf).`,
        { cause: err },
      );
    case '3D000':
      return new IdxError('DB_CONNECT_FAILED', `database "${where.database}" does not exist on ${at}. Create it, or set DB_DATABASE to an existing one.`, {
        cause: err,
      });
    default:
      if (/ssl|certificate|tls/i.test(reason)) {
        return new IdxError(
          'DB_CONNECT_FAILED',
          `SSL connection to ${at} failed: ${reason}. Check --pg-ca, --pg-cert and --pg-key, and that the server accepts SSL.`,
          { cause: err },
        );
      }
      if (/timeout/i.test(reason)) {
        return new IdxError('DB_CONNECT_FAILED', `connecting to ${at} timed out. Check that the server is running and reachable, and DB_HOST and DB_PORT.`, {
          cause: err,
          retryable: true,
        });
      }
      return new IdxError(
        'DB_CONNECT_FAILED',
        `cannot connect to ${at} (database "${where.database}", user "${where.user}"): ${reason}. Check DB_HOST, DB_PORT, DB_USER, DB_PASS and DB_DATABASE.`,
        { cause: err },
      );
  }
}

/** The server version and `btree_gist`, checked before anything else touches the database. */
export async function prepareDatabase(db: Kysely<any>, description: string): Promise<void> {
  const [row] = await execute<{ v: string }>(db, `select current_setting('server_version_num') as v`);
  checkServerVersion(Number(row?.v), description);
  // asked first: a read-only login (idx-query's on the embedded database) may not run CREATE, even one that does nothing
  if ((await execute(db, `select 1 from pg_extension where extname = 'btree_gist'`)).length > 0) return;
  try {
    await execute(db, 'create extension if not exists btree_gist');
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === '42501') {
      throw new IdxError(
        'DB_EXTENSION_MISSING',
        `${description}: this user may not enable the btree_gist extension (${e.message}). Ask the database owner to run "CREATE EXTENSION IF NOT EXISTS btree_gist;" in this database.`,
        { cause: err },
      );
    }
    throw new IdxError(
      'DB_EXTENSION_MISSING',
      `${description} lacks the btree_gist extension, which idx needs (${e.message}). Install it (on Debian/Ubuntu it comes with the postgresql-contrib package) and run "CREATE EXTENSION IF NOT EXISTS btree_gist;".`,
      { cause: err },
    );
  }
}

export function checkServerVersion(versionNum: number, description: string): void {
  if (!Number.isFinite(versionNum) || versionNum < MIN_SERVER_VERSION) {
    const major = !Number.isFinite(versionNum)
      ? 'an unknown version'
      : versionNum >= 100000
        ? String(Math.floor(versionNum / 10000))
        : `${Math.floor(versionNum / 10000)}.${Math.floor(versionNum / 100) % 100}`;
    throw new IdxError(
      'DB_VERSION_UNSUPPORTED',
      `${description} runs PostgreSQL ${major}; idx needs version 12 or higher. Upgrade the server or point DB_HOST at a newer one.`,
    );
  }
}

import { createHash, randomBytes } from 'node:crypto';
import { chmod, lstat, mkdir, mkdtemp, readFile, rm, rmdir, stat } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { writeWholeFile } from '../files/write-whole-file.ts';
import { isAlive } from './acquire-writer-lock.ts';
import { createDb, type Db } from './create-db.ts';
import { createPgliteSocketServer, type PgliteSocketServer } from './pglite-socket-server.ts';

/**
 * How idx-query finds the embedded database of a running node: the node serves its PGlite on a
 * Unix socket (`.s.PGSQL.5432`, so `pg` connects with host = its folder) and writes where, with
 * the logins, in `idx-socket.json` in the data folder, readable by its owner alone (0600).
 * The socket is in the data folder when its path fits a socket name and the folder is not
 * writable by others; otherwise in a private folder (0700) of the user's runtime directory or the
 * temporary one, named from the data folder. Either way the socket file is 0600. TCP on 127.0.0.1
 * remains only where Unix sockets are not (Windows) or no such folder can be had; every login, on
 * either, needs a password (SCRAM), and idx-query's login is read-only.
 */
export const ENDPOINT_FILE = 'idx-socket.json';
/** idx-query's login: read-only */
export const READER_USER = 'idx_query';
/** the owner's login (psql, tools): every right, like opening the folder with the node stopped */
export const OWNER_USER = 'postgres';
const SOCKET_PORT = 5432;
const SOCKET_NAME = `.s.PGSQL.${SOCKET_PORT}`;
// sun_path holds 108 bytes on Linux, 104 on macOS
const MAX_SOCKET_PATH = 100;

export interface SocketLogin {
  user: string;
  password: string;
}

export interface PgliteSocketEndpoint {
  /** the socket's directory, or 127.0.0.1 */
  host: string;
  port: number;
  /** the node serving it */
  pid: number;
  /** where that pid means something: the node's host (its container's, in a container) */
  hostname?: string;
  /** idx-query's login: read-only */
  reader: SocketLogin;
  /** the owner's login: every right */
  owner: SocketLogin;
}

export interface PublishedPgliteSocket {
  endpoint: PgliteSocketEndpoint;
  server: PgliteSocketServer;
  /** stops serving and removes the endpoint file */
  close(): Promise<void>;
}

/** The node in embedded mode: serves its PGlite to other processes and says where. */
export async function publishPgliteSocket(
  db: Db,
  dataDir: string,
  onError?: (err: Error) => void,
  limits: { maxTransactionMs?: number; idleInTransactionMs?: number } = {},
): Promise<PublishedPgliteSocket> {
  const pglite = db.pglite;
  if (pglite === undefined) throw new IdxError('STORE_INTERNAL', 'only an embedded (PGlite) database can be served on a socket');
  const dir = resolve(dataDir);
  const login = (user: string): SocketLogin => ({ user, password: randomBytes(24).toString('base64url') });
  const reader = login(READER_USER);
  const owner = login(OWNER_USER);
  const socketDir = await chooseSocketDir(dir);
  const server = await createPgliteSocketServer({
    pglite,
    exclusive: db.pgliteInBackground ?? ((fn) => db.kysely.connection().execute(() => fn())),
    ...(db.pgliteWaiting && { waiting: db.pgliteWaiting }),
    users: [
      { name: reader.user, password: reader.password, readOnly: true },
      { name: owner.user, password: owner.password, readOnly: false },
    ],
    listen: socketDir !== undefined ? { path: join(socketDir.path, SOCKET_NAME) } : { host: '127.0.0.1', port: 0 },
    ...limits,
    ...(onError && { onError }),
  });
  const where = 'path' in server.address ? { host: socketDir!.path, port: SOCKET_PORT } : { host: server.address.host, port: server.address.port };
  const endpoint: PgliteSocketEndpoint = { ...where, pid: process.pid, hostname: hostname(), reader, owner };
  const file = join(dir, ENDPOINT_FILE);
  try {
    await writeWholeFile(file, `${JSON.stringify(endpoint)}\n`, { mode: 0o600 });
  } catch (err) {
    await server.close();
    throw err;
  }
  return {
    endpoint,
    server,
    async close() {
      await rm(file, { force: true });
      await server.close();
      if (socketDir?.own === true) await rmdir(socketDir.path).catch(() => undefined);
    },
  };
}

/**
 * Where the socket goes: the data folder, or a private folder made for it; undefined for TCP.
 * A folder others may write to would let them put their own socket or endpoint file in its place.
 */
async function chooseSocketDir(dataDir: string): Promise<{ path: string; own: boolean } | undefined> {
  if (process.platform === 'win32') return undefined;
  const fits = (dir: string) => Buffer.byteLength(join(dir, SOCKET_NAME)) <= MAX_SOCKET_PATH;
  if (fits(dataDir) && ((await stat(dataDir)).mode & 0o022) === 0) return { path: dataDir, own: false };
  const uid = process.getuid?.() ?? 0;
  const runtime = process.env.XDG_RUNTIME_DIR;
  let base = tmpdir();
  if (runtime !== undefined && runtime.startsWith('/')) {
    const st = await stat(runtime).catch(() => undefined);
    if (st?.isDirectory() === true && st.uid === uid && (st.mode & 0o077) === 0) base = runtime;
  }
  const named = join(base, `idx-${uid}-${createHash('sha256').update(dataDir).digest('hex').slice(0, 16)}`);
  if (!fits(named)) return undefined;
  await mkdir(named, { mode: 0o700 }).catch((err: NodeJS.ErrnoException) => {
    if (err.code !== 'EEXIST') throw err;
  });
  // left by an earlier run of ours: reused; anyone else's (or a link): a fresh folder of a random name instead
  const st = await lstat(named);
  if (st.isDirectory() && !st.isSymbolicLink() && st.uid === uid) {
    await chmod(named, 0o700);
    return { path: named, own: true };
  }
  const fresh = await mkdtemp(join(base, `idx-${uid}-`));
  return fits(fresh) ? { path: fresh, own: true } : (await rmdir(fresh), undefined);
}

/** Where the node serving `dataDir` listens; a clear error when no node is running there. */
export async function findPgliteSocket(dataDir: string): Promise<PgliteSocketEndpoint> {
  const dir = resolve(dataDir);
  // the data folder is <project>/.idx-data: the user knows the project
  const project = basename(dir) === '.idx-data' ? dirname(dir) : dir;
  const notRunning = (why: string) =>
    new IdxError(
      'EMBEDDED_NODE_NOT_RUNNING',
      `idx-node is not running for ${project}: DB_HOST is not set, so idx-query reads the embedded database of idx-node in ${dir}, but ${why}. ` +
        'Start idx-node on the project first (without DB_HOST), or point DB_HOST at the PostgreSQL server the node writes to.',
      { retryable: true },
    );
  let text: string;
  try {
    text = await readFile(join(dir, ENDPOINT_FILE), 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notRunning('no idx-node is serving it');
    throw err;
  }
  let endpoint: PgliteSocketEndpoint;
  try {
    endpoint = JSON.parse(text) as PgliteSocketEndpoint;
  } catch {
    throw notRunning(`${ENDPOINT_FILE} there is unreadable`);
  }
  if (typeof endpoint.reader?.password !== 'string') throw notRunning(`${ENDPOINT_FILE} there names no login (written by an older idx-node: restart it)`);
  await checkPrivate(dir);
  // a node in another container (sharing the folder) has a pid of another pid space: connecting tells
  if (!elsewhere(endpoint) && !isAlive(endpoint.pid)) throw notRunning(`the idx-node that served it (pid ${endpoint.pid}) is no longer running`);
  return endpoint;
}

/**
 * The endpoint file holds passwords: one that others can read, or that is not the data folder's
 * owner's (someone who may write there put it), is not trusted.
 */
async function checkPrivate(dir: string): Promise<void> {
  if (process.platform === 'win32') return;
  const file = join(dir, ENDPOINT_FILE);
  const [st, folder] = await Promise.all([lstat(file), stat(dir)]);
  const problem = !st.isFile()
    ? 'is not a regular file'
    : (st.mode & 0o077) !== 0
      ? `can be read or written by other users (mode ${(st.mode & 0o777).toString(8)})`
      : st.uid !== folder.uid
        ? `belongs to user ${st.uid}, not to the folder's owner (user ${folder.uid})`
        : undefined;
  if (problem === undefined) return;
  throw new IdxError(
    'EMBEDDED_SOCKET_UNSAFE',
    `${file} ${problem}, so its logins to the embedded database cannot be trusted. ` +
      'Make the data folder writable by its owner alone (chmod go-w) and restart idx-node, which writes the file anew (mode 600).',
  );
}

const elsewhere = (e: PgliteSocketEndpoint) => e.hostname !== undefined && e.hostname !== hostname();
const nodeText = (e: PgliteSocketEndpoint) => `idx-node (pid ${e.pid}${elsewhere(e) ? ` on ${e.hostname}` : ''})`;

/** A pg pool on the node's embedded database, as a {@link Db} for the query service. */
export async function openPgliteSocketDb(
  dataDir: string,
  options: { maxConnections?: number; applicationName?: string; onPoolError?: (err: Error) => void } = {},
): Promise<Db> {
  const endpoint = await findPgliteSocket(dataDir);
  const db = await createDb({
    env: { DB_HOST: endpoint.host, DB_PORT: String(endpoint.port), DB_USER: endpoint.reader.user, DB_DATABASE: 'postgres' },
    // read anew for each connection: a restarted node serves the same socket with new passwords
    password: async () => (await findPgliteSocket(dataDir)).reader.password,
    ...(options.maxConnections !== undefined && { maxConnections: options.maxConnections }),
    ...(options.applicationName !== undefined && { applicationName: options.applicationName }),
    ...(options.onPoolError && { onPoolError: options.onPoolError }),
  }).catch((err: unknown) => {
    throw new IdxError(
      'EMBEDDED_NODE_NOT_RUNNING',
      `cannot connect to the embedded database of ${nodeText(endpoint)} in ${resolve(dataDir)}: ` +
        (elsewhere(endpoint)
          ? `${(err as Error).message.replace(/\.$/, '')}. That node runs in another container or on another host: is it still running?`
          : (err as Error).message),
      { cause: err, retryable: true },
    );
  });
  return {
    kind: db.kind,
    kysely: db.kysely,
    description: `the embedded database of ${nodeText(endpoint)} in ${resolve(dataDir)}`,
    ...(db.connection && { connection: db.connection }),
    close: () => db.close(),
  };
}

import { readFile, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { isAlive } from './acquire-writer-lock.ts';
import { createDb, type Db } from './create-db.ts';
import { createPgliteSocketServer, type PgliteSocketServer } from './pglite-socket-server.ts';

/**
 * How idx-query finds the embedded database of a running node: the node serves its PGlite on a
 * Unix socket inside the data folder (`.s.PGSQL.5432`, so `pg` connects with host = the folder)
 * and writes where in `idx-socket.json` beside it, with its pid. Unix sockets keep the database
 * to the user who owns the folder; a folder whose path is too long for a socket name falls back
 * to TCP on 127.0.0.1 with a free port.
 */
export const ENDPOINT_FILE = 'idx-socket.json';
const SOCKET_PORT = 5432;
// sun_path holds 108 bytes on Linux, 104 on macOS
const MAX_SOCKET_PATH = 100;

export interface PgliteSocketEndpoint {
  /** the data folder (a Unix socket's directory) or 127.0.0.1 */
  host: string;
  port: number;
  /** the node serving it */
  pid: number;
  /** where that pid means something: the node's host (its container's, in a container) */
  hostname?: string;
}

export interface PublishedPgliteSocket {
  endpoint: PgliteSocketEndpoint;
  server: PgliteSocketServer;
  /** stops serving and removes the endpoint file */
  close(): Promise<void>;
}

/** The node in embedded mode: serves its PGlite to other processes and says where. */
export async function publishPgliteSocket(db: Db, dataDir: string, onError?: (err: Error) => void): Promise<PublishedPgliteSocket> {
  const pglite = db.pglite;
  if (pglite === undefined) throw new IdxError('STORE_INTERNAL', 'only an embedded (PGlite) database can be served on a socket');
  const dir = resolve(dataDir);
  const path = join(dir, `.s.PGSQL.${SOCKET_PORT}`);
  const useUnix = Buffer.byteLength(path) <= MAX_SOCKET_PATH && process.platform !== 'win32';
  const server = await createPgliteSocketServer({
    pglite,
    exclusive: (fn) => db.kysely.connection().execute(() => fn()),
    listen: useUnix ? { path } : { host: '127.0.0.1', port: 0 },
    ...(onError && { onError }),
  });
  const where = 'path' in server.address ? { host: dir, port: SOCKET_PORT } : { host: server.address.host, port: server.address.port };
  const endpoint: PgliteSocketEndpoint = { ...where, pid: process.pid, hostname: hostname() };
  const file = join(dir, ENDPOINT_FILE);
  await writeFile(file, `${JSON.stringify(endpoint)}\n`);
  return {
    endpoint,
    server,
    async close() {
      await rm(file, { force: true });
      await server.close();
    },
  };
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
  // a node in another container (sharing the folder) has a pid of another pid space: connecting tells
  if (!elsewhere(endpoint) && !isAlive(endpoint.pid)) throw notRunning(`the idx-node that served it (pid ${endpoint.pid}) is no longer running`);
  return endpoint;
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
    env: { DB_HOST: endpoint.host, DB_PORT: String(endpoint.port), DB_USER: 'postgres', DB_DATABASE: 'postgres' },
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

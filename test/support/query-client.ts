import { queryFeatures } from '../../apps/query/query-features.ts';
import { parseQueryArgs } from '../../apps/query/query-options.ts';
import { runQuery, type RunningQuery } from '../../apps/query/run-query.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { createDb, type Db } from '../../infra/postgres/create-db.ts';
import { openPgliteSocketDb, publishPgliteSocket, type PublishedPgliteSocket } from '../../infra/postgres/pglite-socket-endpoint.ts';
import type { WsAnswer } from './over-ws.ts';
import type { TestBackend } from './test-backends.ts';
import { freePortGuess } from './node-ports.ts';
import type { Teardown } from './teardown.ts';

export interface GqlAnswer<D = any> extends WsAnswer<D> {
  status: number;
}

/** idx-query over `db` (already indexed into `schema`), as the CLI would parse and run `args` (features included); closed on teardown. */
export async function startQueryService(
  t: Teardown,
  db: Db,
  schema: string,
  args: readonly string[] = [],
  extra: { hotSchemaIntervalMs?: number } = {},
): Promise<RunningQuery> {
  const cmd = parseQueryArgs(['-n', schema, '--port', String(freePortGuess()), '--log-level', 'warn', ...args], { version: 'test', cwd: '/', write: () => {} });
  if (cmd.command !== 'run') throw new Error('expected a run command');
  const logger = createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} });
  const running = await runQuery({ options: cmd.options, logger, version: 'test', env: {}, db, features: queryFeatures(cmd.options), ...extra });
  t.teardown(() => running.close());
  return running;
}

const sockets = new WeakMap<Db, { socket: Promise<PublishedPgliteSocket>; users: number }>();

/**
 * A PGlite database served on its socket once, however many services of a test read it: the socket
 * file is one per data folder, so a second publication would replace it, and closing that one would
 * take the file from the services still using the first. Closed when its last user's test ends.
 */
async function shareSocket(t: Teardown, db: Db, dir: string): Promise<void> {
  let entry = sockets.get(db);
  if (entry === undefined) {
    entry = { socket: publishPgliteSocket(db, dir), users: 0 };
    sockets.set(db, entry);
  }
  const shared = entry;
  shared.users++;
  const socket = await shared.socket;
  t.teardown(async () => {
    if (--shared.users > 0) return;
    sockets.delete(db);
    await socket.close();
  });
}

/**
 * idx-query with --subscription over a test backend's schema: through the node's socket on
 * PGlite (as the node serves it), directly on PostgreSQL; closed on teardown.
 */
export async function startSubscriptionService(t: Teardown, b: TestBackend, args: readonly string[] = []): Promise<RunningQuery> {
  let db: Db;
  if (b.db.pglite !== undefined) {
    const dir = b.db.pglite.dataDir!;
    await shareSocket(t, b.db, dir);
    db = await openPgliteSocketDb(dir);
  } else {
    db = await createDb({ env: process.env });
  }
  t.teardown(() => db.close());
  return startQueryService(t, db, b.schema, ['--subscription', ...args]);
}

/** One GraphQL request over HTTP POST (or GET). */
export async function gql<D = any>(url: string, query: string, variables?: Record<string, unknown>, method: 'GET' | 'POST' = 'POST'): Promise<GqlAnswer<D>> {
  let res: Response;
  if (method === 'GET') {
    const qs = new URLSearchParams({ query, ...(variables && { variables: JSON.stringify(variables) }) });
    res = await fetch(`${url}/?${qs}`);
  } else {
    res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query, variables }) });
  }
  const body = (await res.json()) as Omit<GqlAnswer<D>, 'status'>;
  return { status: res.status, ...body };
}

/** The data of a request that must succeed; throws with the errors otherwise. */
export async function gqlData<D = any>(url: string, query: string, variables?: Record<string, unknown>): Promise<D> {
  const a = await gql<D>(url, query, variables);
  if (a.errors !== undefined || a.status !== 200) throw new Error(`GraphQL failed (${a.status}): ${JSON.stringify(a.errors)}\n${query}`);
  return a.data as D;
}

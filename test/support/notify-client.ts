import { join } from 'node:path';
import pg from 'pg';
import { findPgliteSocket } from '../../infra/postgres/pglite-socket-endpoint.ts';
import { envFor } from './node-backends.ts';
import type { BackendKind } from './test-backends.ts';

/** A connection to send probe notifications: the node's socket on PGlite, the server on PostgreSQL. */
export async function notifierFor(kind: BackendKind, dir: string): Promise<pg.Client> {
  let config: pg.ClientConfig;
  if (kind === 'pglite') {
    const e = await findPgliteSocket(join(dir, '.idx-data'));
    config = { host: e.host, port: e.port, user: e.owner.user, password: e.owner.password, database: 'postgres' };
  } else {
    const env = envFor('postgres');
    config = {
      host: env.DB_HOST,
      port: Number(env.DB_PORT || 5432),
      user: env.DB_USER || 'postgres',
      password: env.DB_PASS,
      database: env.DB_DATABASE || 'postgres',
    };
  }
  const c = new pg.Client(config);
  c.on('error', () => undefined); // the node going away at the end
  await c.connect();
  return c;
}

import { join } from 'node:path';
import { createDb } from '../../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import type { Teardown } from './teardown.ts';
import type { BackendKind } from './test-backends.ts';

/** PGlite always; PostgreSQL too when `DB_HOST` is set (CI sets it). */
export const BACKENDS: readonly BackendKind[] = process.env.DB_HOST ? ['pglite', 'postgres'] : ['pglite'];

/**
 * The one backend for scenarios about the program rather than SQL (RPC faults, lying endpoints,
 * bad values caught in the sandbox): PostgreSQL when `DB_HOST` is set (it opens faster), else
 * PGlite. SQL-level behaviour is tested on both.
 */
export const PROGRAM_BACKEND: BackendKind = process.env.DB_HOST ? 'postgres' : 'pglite';

export function envFor(kind: BackendKind): Record<string, string | undefined> {
  if (kind === 'pglite') return {};
  const { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE } = process.env;
  return { DB_HOST, DB_PORT, DB_USER, DB_PASS, DB_DATABASE };
}

/** The database a node run on `dir` wrote to. */
export function openDb(kind: BackendKind, dir: string) {
  return createDb({ env: envFor(kind), dataDir: join(dir, '.idx-data') });
}

/**
 * The schema a node run on `dir` wrote, opened for a test's checks and dropped at its end, with the height the
 * run saved last (`_metadata.lastProcessedHeight`, undefined when it saved none).
 */
export async function openRunSchema(t: Teardown, kind: BackendKind, dir: string, schema: string) {
  const db = await openDb(kind, dir);
  t.teardown(async () => {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
    await db.close();
  });
  const [row] = await execute<{ value: unknown }>(db.kysely, `select value from ${quoteIdent(schema)}._metadata where key = 'lastProcessedHeight'`);
  return { db, lastProcessedHeight: row?.value };
}

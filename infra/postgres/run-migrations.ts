import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import type { Kysely } from 'kysely';
import { IdxError } from '../../domain/errors.ts';
import { execute, qualified, quoteIdent } from './sql.ts';

export interface Migration {
  /** file name, e.g. `0001_internal_tables.sql`; the order is the names' order */
  name: string;
  sql: string;
}

/** The table recording which migrations ran, in each project schema. */
export const MIGRATIONS_TABLE = '_migrations';

/**
 * `migrations/` of the package. From the sources it is two folders up; from `dist/` three, since
 * the built files sit one folder deeper while `migrations/` ships at the package root.
 */
export function defaultMigrationsDir(): string {
  for (const rel of ['../../migrations/', '../../../migrations/']) {
    const dir = fileURLToPath(new URL(rel, import.meta.url));
    if (existsSync(dir)) return dir;
  }
  throw new IdxError('MIGRATIONS_NOT_FOUND', `the migrations folder of idx is missing next to ${fileURLToPath(import.meta.url)}; reinstall idx`);
}

export async function loadMigrations(dir = defaultMigrationsDir()): Promise<Migration[]> {
  const names = (await readdir(dir)).filter((n) => n.endsWith('.sql')).sort();
  return Promise.all(names.map(async (name) => ({ name, sql: await readFile(`${dir}/${name}`, 'utf8') })));
}

/**
 * Creates the project schema if needed and applies the migrations it has not had yet, each once.
 * A transaction-scoped advisory lock keyed on the schema makes concurrent starts (a node and a
 * query service, or two nodes) wait for each other instead of racing; either everything pending
 * is applied and recorded, or nothing is. Returns the names applied now.
 */
export async function runMigrations(db: Kysely<any>, schema: string, migrations?: readonly Migration[]): Promise<string[]> {
  const all = migrations ?? (await loadMigrations());
  return db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.migrations:${schema}`]);
    await execute(tx, `create schema if not exists ${quoteIdent(schema)}`);
    await execute(
      tx,
      `create table if not exists ${qualified(schema, MIGRATIONS_TABLE)} (name text primary key, applied_at timestamptz not null default now())`,
    );
    const done = new Set((await execute<{ name: string }>(tx, `select name from ${qualified(schema, MIGRATIONS_TABLE)}`)).map((r) => r.name));
    const pending = all.filter((m) => !done.has(m.name));
    if (pending.length === 0) return [];
    // Migration files name tables unqualified; `set local` ends with this transaction.
    await execute(tx, `set local search_path to ${quoteIdent(schema)}, public`);
    for (const m of pending) {
      try {
        await execute(tx, m.sql);
      } catch (err) {
        throw new IdxError('MIGRATION_FAILED', `migration ${m.name} failed in schema "${schema}": ${(err as Error).message}`, { cause: err });
      }
      await execute(tx, `insert into ${qualified(schema, MIGRATIONS_TABLE)} (name) values ($1)`, [m.name]);
    }
    return pending.map((m) => m.name);
  });
}

import { randomBytes } from 'node:crypto';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Test } from 'tap';
import { createDb, type Db } from '../../infra/postgres/create-db.ts';
import { pgliteTemplate } from '../../infra/postgres/pglite-template.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';

/**
 * Runs storage tests on every backend: PGlite always, PostgreSQL too when `DB_HOST` is set
 * (CI sets it). Each run gets a fresh, uniquely named schema that is dropped afterwards; the
 * databases themselves are opened once per test file and closed when it ends.
 */

export type BackendKind = 'pglite' | 'postgres';

export interface TestBackend {
  kind: BackendKind;
  db: Db;
  /** a fresh schema, created empty, dropped after the test */
  schema: string;
}

export interface TestBackends {
  /** the backends this run covers */
  readonly kinds: readonly BackendKind[];
  /** One subtest per backend, each with a fresh schema. */
  each(t: Test, body: (t: Test, backend: TestBackend) => Promise<void>): Promise<void>;
  /** The shared database of a backend (opened on first use). */
  db(kind: BackendKind): Promise<Db>;
}

export interface TestBackendsOptions {
  env?: Readonly<Record<string, string | undefined>>;
}

/** Create once per test file, at its top: `const backends = createTestBackends(t)`. */
export function createTestBackends(root: Test, options: TestBackendsOptions = {}): TestBackends {
  const env = options.env ?? process.env;
  const kinds: BackendKind[] = env.DB_HOST ? ['pglite', 'postgres'] : ['pglite'];
  const opened = new Map<BackendKind, Promise<Db>>();
  const cleanups: (() => Promise<void>)[] = [];

  root.teardown(async () => {
    for (const kind of [...opened.keys()]) await (await opened.get(kind)!).close();
    for (const cleanup of cleanups) await cleanup();
  });

  function db(kind: BackendKind): Promise<Db> {
    let p = opened.get(kind);
    if (p === undefined) {
      p =
        kind === 'postgres'
          ? createDb({ env, maxConnections: 4 })
          : (async () => {
              const dir = await freshPgliteDir();
              cleanups.push(() => rm(dir, { recursive: true, force: true }));
              return createDb({ env: {}, dataDir: dir });
            })();
      opened.set(kind, p);
    }
    return p;
  }

  return {
    kinds,
    db,
    async each(t, body) {
      for (const kind of kinds) {
        await t.test(kind, async (t) => {
          const backend = { kind, db: await db(kind), schema: uniqueSchemaName() };
          await execute(backend.db.kysely, `create schema ${quoteIdent(backend.schema)}`);
          try {
            await body(t, backend);
          } finally {
            await execute(backend.db.kysely, `drop schema if exists ${quoteIdent(backend.schema)} cascade`);
          }
        });
      }
    },
  };
}

export function uniqueSchemaName(prefix = 'idx_test'): string {
  return `${prefix}_${randomBytes(6).toString('hex')}`;
}

/** A new PGlite data folder, copied from the per-machine template (see pglite-template.ts). Remove it when done. */
export async function freshPgliteDir(): Promise<string> {
  const template = await pgliteTemplate();
  const dir = await mkdtemp(join(tmpdir(), 'idx-pglite-'));
  await cp(template, dir, { recursive: true });
  return dir;
}

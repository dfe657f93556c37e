import { runNode } from '../../apps/node/start-up/run-node.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import type { Db } from '../../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { envFor, openDb } from './node-backends.ts';
import { nodeOptions } from './parsed-node-options.ts';
import type { BackendKind } from './test-backends.ts';
import type { Teardown } from './teardown.ts';

/**
 * Indexes the project in `dir` with idx-node in this test's own process, quietly (but for `log`), until
 * `stopAtHeight`; no `endpoint`: the manifest's. The caller's test file loads isolated-vm then: it must
 * call `exitWhenDone()`.
 */
export function indexInProcess(
  kind: BackendKind,
  dir: string,
  endpoint: string | undefined,
  args: readonly string[],
  stopAtHeight: number,
  /** the node's warnings and errors, a line each */
  log: (line: string) => void = () => {},
): Promise<void> {
  return runNode({
    options: nodeOptions(dir, endpoint, args),
    logger: createLogger({ level: 'warn', format: 'colored', colors: false, write: log }),
    version: 'test',
    env: envFor(kind),
    signal: new AbortController().signal,
    settings: { stopAtHeight },
  });
}

/** The database a run on `dir` wrote to; the test's schemas are dropped and the connection closed on teardown. */
export async function openIndexedDb(t: Teardown, kind: BackendKind, dir: string, schemas: readonly string[]): Promise<Db> {
  const db = await openDb(kind, dir);
  t.teardown(async () => {
    for (const s of schemas) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
    await db.close();
  });
  return db;
}

/**
 * Reads of a database that node runs change between them. PGlite is opened by one process at a time:
 * a reader kept open across a run would hold the node off (DB_LOCKED), and before the lock read the
 * pages it had cached, not the run's commits. So each read opens the database and closes it again.
 * The test's schemas are dropped on teardown.
 */
export function indexedDbReads(t: Teardown, kind: BackendKind, dir: string, schemas: readonly string[]) {
  const read = async <T>(fn: (db: Db) => Promise<T>): Promise<T> => {
    const db = await openDb(kind, dir);
    try {
      return await fn(db);
    } finally {
      await db.close();
    }
  };
  t.teardown(() =>
    read(async (db) => {
      for (const s of schemas) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
    }),
  );
  return read;
}

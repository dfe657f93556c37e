import type { Kysely } from 'kysely';
import { IdxError } from '../../domain/errors.ts';
import type { Statement } from './entity-write-statements.ts';
import { execute, type Executor } from './sql.ts';

/**
 * Runs statements in one transaction, building each one's parameters while the server runs the one
 * before. Failures become IdxErrors naming `what` and the schema (DISK_FULL for PostgreSQL's 53100).
 */
export async function runStatements(db: Kysely<any>, schema: string, statements: readonly Statement[], what: string): Promise<void> {
  if (statements.length === 0) return;
  const paramsOf = (s: Statement) => (typeof s.params === 'function' ? s.params() : s.params);
  await db.transaction().execute(async (tx) => {
    let params = paramsOf(statements[0]!);
    for (let i = 0; i < statements.length; i++) {
      const running = runOne(tx, schema, statements[i]!.sql, params, what);
      running.catch(() => {}); // awaited below; this only keeps an early failure from counting as unhandled
      if (i + 1 < statements.length) {
        // Once the statement is on the wire, encode the next one while the server works.
        await new Promise(setImmediate);
        params = paramsOf(statements[i + 1]!);
      }
      await running;
    }
  });
}

async function runOne(tx: Executor, schema: string, sql: string, params: unknown[], what: string): Promise<void> {
  try {
    await execute(tx, sql, params);
  } catch (err) {
    if (err instanceof IdxError) throw err;
    if ((err as { code?: string }).code === '53100') {
      throw new IdxError(
        'DISK_FULL',
        `${what} failed in schema "${schema}": the database's disk is full (${(err as Error).message}). Free some space on it and start again: indexing resumes after the last committed block.`,
        { cause: err },
      );
    }
    throw new IdxError('STORE_WRITE_FAILED', `${what} failed in schema "${schema}": ${(err as Error).message}`, { cause: err });
  }
}

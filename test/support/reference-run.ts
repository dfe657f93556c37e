import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { indexInProcess } from './index-in-process.ts';
import { openDb, PROGRAM_BACKEND } from './node-backends.ts';
import { copyProject } from './project-copies.ts';
import { erc20Tables } from './erc20-tables.ts';
import type { Teardown } from './teardown.ts';
import { uniqueSchemaName } from './test-backends.ts';

export type Erc20Tables = Awaited<ReturnType<typeof erc20Tables>>;

/**
 * The version rows of one uninterrupted run of the built starter to `toBlock`: what an interrupted or
 * faulted run must end with, on either database (their rows are the same by design, so it runs on the
 * one that opens faster).
 */
export async function referenceTables(t: Teardown, built: string, chainUrl: string, toBlock: number): Promise<Erc20Tables> {
  const dir = await copyProject(t, built);
  const schema = uniqueSchemaName('idx_ref');
  await indexInProcess(PROGRAM_BACKEND, dir, chainUrl, ['--db-schema', schema], toBlock);
  const db = await openDb(PROGRAM_BACKEND, dir);
  try {
    return await erc20Tables(db, schema);
  } finally {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => undefined);
    await db.close();
  }
}

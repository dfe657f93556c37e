import { runNode } from '../../apps/node/run-node.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { envFor, openDb, PROGRAM_BACKEND } from './node-backends.ts';
import { nodeOptions } from './parsed-node-options.ts';
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
  await runNode({
    options: nodeOptions(dir, chainUrl, ['--db-schema', schema]),
    logger: createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} }),
    version: 'test',
    env: envFor(PROGRAM_BACKEND),
    signal: new AbortController().signal,
    settings: { stopAtHeight: toBlock },
  });
  const db = await openDb(PROGRAM_BACKEND, dir);
  try {
    return await erc20Tables(db, schema);
  } finally {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => undefined);
    await db.close();
  }
}

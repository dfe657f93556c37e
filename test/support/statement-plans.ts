import { entityTables, type EntityTable } from '../../apps/query/entity-tables.ts';
import { createQueryContext, type QueryContext } from '../../apps/query/query-context.ts';
import type { Db } from '../../infra/postgres/create-db.ts';
import { readStoredProject } from '../../infra/postgres/read-stored-project.ts';
import { execute } from '../../infra/postgres/sql.ts';

export interface Statement {
  text: string;
  params: readonly unknown[];
}

/** A query context over an indexed schema that runs statements as idx-query would, and keeps them for EXPLAIN. */
export async function recordingContext(
  db: Db,
  schema: string,
): Promise<{ ctx: QueryContext; tables: ReadonlyMap<string, EntityTable>; last(pattern?: RegExp): Statement }> {
  const tables = entityTables(await readStoredProject(db.kysely, schema));
  const ctx = createQueryContext({
    db: db.kysely,
    schema,
    tables,
    settings: { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 120_000 },
    metadata: { chains: async () => [] },
  });
  const run = ctx.sql.bind(ctx);
  const seen: Statement[] = [];
  ctx.sql = async <R>(text: string, params: readonly unknown[]) => {
    seen.push({ text, params });
    return run<R>(text, params);
  };
  const last = (pattern?: RegExp) => {
    const found = seen.filter((s) => pattern === undefined || pattern.test(s.text)).at(-1);
    if (found === undefined) throw new Error(`no statement${pattern === undefined ? '' : ` matching ${pattern}`} was run`);
    return found;
  };
  return { ctx, tables, last };
}

/**
 * PostgreSQL's plan of a statement as JSON text (`analyze`: run, with actual row counts).
 * `noSeqScan`: with sequential scans ruled out, to see that an index can serve a table too small
 * for the planner to prefer it. `scratch`: statements run first in the same transaction (rows
 * that make a table the size the plan is for, an ANALYZE), which is rolled back.
 */
export async function explainJson(db: Db, s: Statement, { analyze = true, noSeqScan = false, scratch = [] as readonly string[] } = {}): Promise<string> {
  let plan = '';
  await db.kysely
    .transaction()
    .execute(async (tx) => {
      for (const statement of scratch) await execute(tx, statement);
      if (noSeqScan) await execute(tx, 'set local enable_seqscan = off');
      const [row] = await execute<{ 'QUERY PLAN': unknown }>(tx, `explain (${analyze ? 'analyze, ' : ''}format json) ${s.text}`, s.params);
      plan = JSON.stringify(row!['QUERY PLAN']);
      if (scratch.length > 0) throw ROLLBACK;
    })
    .catch((err: unknown) => {
      if (err !== ROLLBACK) throw err;
    });
  return plan;
}

const ROLLBACK = new Error('rolled back on purpose');

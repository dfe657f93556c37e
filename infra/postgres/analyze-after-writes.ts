import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import type { StoreOperation } from '../../domain/entities/entity-store.ts';
import { nextAnalysisAt, planAnalyses, type AnalyzedTable } from './analyze-plan.ts';
import { execute, qualified } from './sql.ts';

export interface AnalyzeAfterWritesInput {
  db: Kysely<any>;
  schema: string;
  model: SchemaModel;
  /** the share of the time analyses may take (analyze-plan.ts) */
  timeShare?: number;
  /** an analysis its timer ran (not a flush) failed */
  onError?: (err: Error) => void;
}

/**
 * ANALYZE for the embedded database, which has no autovacuum: after each flush, the entity tables
 * that changed by more than autovacuum's threshold since they were last analyzed are analyzed, so
 * `pg_class.reltuples` (idx-query's `rowCountEstimate`) and the planner's statistics follow the data
 * as they do on PostgreSQL. The cost stays bounded: each analysis samples at most 30,000 rows, and
 * analyses take at most a set share of the time (analyze-plan.ts); one due sooner waits, and runs
 * on a timer when no flush comes, so the statistics are right once the node is idle at the head.
 */
export function createAnalyzeAfterWrites(input: AnalyzeAfterWritesInput) {
  const tableOf = new Map(input.model.entities.map((e) => [e.name, e.table]));
  const tables = new Map<string, AnalyzedTable>();
  let queue: Promise<void> = Promise.resolve();
  let timer: NodeJS.Timeout | undefined;
  let wakeAt: number | undefined;
  let closed = false;

  async function analyzeDue(): Promise<void> {
    if (closed) return;
    const plan = planAnalyses(tables, performance.now());
    for (const table of plan.now) {
      const started = performance.now();
      await execute(input.db, `analyze ${qualified(input.schema, table)}`);
      const [row] = await execute<{ rows: number }>(
        input.db,
        `select greatest(c.reltuples, 0)::float8 as rows from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relname = $2`,
        [input.schema, table],
      );
      const ended = performance.now();
      tables.set(table, { changed: 0, analyzedRows: Number(row?.rows ?? 0), notBefore: nextAnalysisAt(ended, ended - started, input.timeShare) });
    }
    if (plan.wakeAt !== undefined) wake(plan.wakeAt);
  }

  function wake(at: number): void {
    if (closed || (wakeAt !== undefined && wakeAt <= at)) return;
    clearTimeout(timer);
    wakeAt = at;
    timer = setTimeout(
      () => {
        timer = wakeAt = undefined;
        run().catch((err: unknown) => input.onError?.(err as Error));
      },
      Math.max(0, at - performance.now()),
    );
    // a node stopping does not wait for statistics
    timer.unref();
  }

  /** One analysis at a time: a flush's and the timer's never overlap. */
  function run(): Promise<void> {
    const next = queue.then(analyzeDue);
    queue = next.catch(() => undefined);
    return next;
  }

  return {
    /** Call after `operations` committed. */
    afterFlush(operations: readonly StoreOperation[]): Promise<void> {
      for (const op of operations) {
        const table = tableOf.get(op.entity);
        if (table === undefined) continue;
        const t = tables.get(table) ?? { changed: 0, analyzedRows: 0, notBefore: 0 };
        t.changed++;
        tables.set(table, t);
      }
      return run();
    },
    /** No analysis after this; waits for one running. */
    async close(): Promise<void> {
      closed = true;
      clearTimeout(timer);
      await queue;
    },
  };
}

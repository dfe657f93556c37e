/** PostgreSQL's autovacuum defaults: analyze a table once 50 rows plus 10% of it changed. */
export const ANALYZE_THRESHOLD = 50;
export const ANALYZE_SCALE = 0.1;
/**
 * The share of the time ANALYZE may take: a table whose analysis took d ms is not analyzed again
 * for d / share ms. Without it, a historical sync (each flush growing the tables by more than 10%)
 * analyzed every table at every flush: on the ERC20 workload, 3.6 s of the embedded database's 12 s
 * of work, the biggest table's analysis taking 440 ms at 40,000 rows. Autovacuum, too, looks at a
 * database at most once a minute.
 */
export const ANALYZE_TIME_SHARE = 0.05;

/** What the node knows of one table since it last analyzed it. */
export interface AnalyzedTable {
  /** rows written since */
  changed: number;
  /** its row count then (`pg_class.reltuples`), 0 before the first */
  analyzedRows: number;
  /** not analyzed again before this time (ms, the caller's clock) */
  notBefore: number;
}

export interface AnalysisPlan {
  /** the tables to analyze now */
  now: string[];
  /** when to look again, for tables due but analyzed too recently */
  wakeAt?: number;
}

/** The tables due (50 rows plus 10% changed) and allowed (their time share spent) at `at`; when to wake for the others. */
export function planAnalyses(tables: ReadonlyMap<string, AnalyzedTable>, at: number): AnalysisPlan {
  const plan: AnalysisPlan = { now: [] };
  for (const [table, t] of tables) {
    if (t.changed < ANALYZE_THRESHOLD + ANALYZE_SCALE * t.analyzedRows) continue;
    if (at >= t.notBefore) plan.now.push(table);
    else plan.wakeAt = Math.min(plan.wakeAt ?? t.notBefore, t.notBefore);
  }
  return plan;
}

/** When a table whose analysis ended at `endedAt` after `tookMs` may be analyzed again. */
export function nextAnalysisAt(endedAt: number, tookMs: number, share = ANALYZE_TIME_SHARE): number {
  return endedAt + tookMs / share;
}

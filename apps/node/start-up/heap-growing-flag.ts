/**
 * The V8 flag that keeps idx-node's JavaScript heap in proportion to its live data, or undefined
 * when the user gave their own value (command line or NODE_OPTIONS), which is kept.
 *
 * V8 otherwise lets the heap grow to 2–4× its live data between full collections, and the longer
 * the run, the further: on PostgreSQL the ERC20 bench's peak RSS went from ~290 MiB over 2,000
 * blocks to ~380 over 20,000 (heaps of 140 and 245 MiB over 50–80 MiB of live objects), so memory
 * grew with the chain, not with the work in flight. At 2× (100 %) the peaks were 251–264 and 271 MiB.
 * Beside PGlite, whose WebAssembly heap (~130 MiB) is resident too, 1.3× (30 %): its peak RSS fell
 * from ~520 to ~410 MiB at the same speed. On PostgreSQL 1.3× cost ~5 % of throughput, hence 2× there.
 */
export function heapGrowingFlag(env: Record<string, string | undefined>, execArgv: readonly string[]): string | undefined {
  const given = [...execArgv, env.NODE_OPTIONS ?? ''].join(' ');
  if (/--heap[-_]growing[-_]percent/.test(given)) return undefined;
  return `--heap-growing-percent=${env.DB_HOST ? POSTGRES_HEAP_GROWING_PERCENT : EMBEDDED_HEAP_GROWING_PERCENT}`;
}

/** beside PGlite: the JS heap at most 1.3× its live data */
export const EMBEDDED_HEAP_GROWING_PERCENT = 30;
/** on PostgreSQL: at most 2×, bounded as with PGlite but with fewer full collections */
export const POSTGRES_HEAP_GROWING_PERCENT = 100;

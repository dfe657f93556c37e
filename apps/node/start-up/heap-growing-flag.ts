/**
 * The V8 flag that keeps idx-node's JavaScript heap close to its live data when the embedded
 * database runs in the same process, or undefined when it should be left as it is.
 *
 * PGlite's WebAssembly heap (~130 MiB) is resident beside the JS heap. V8 otherwise lets the JS
 * heap grow to 2–4× its live data between full collections (~47 MiB live, 180 MiB held at the
 * ERC20 bench's peak); at 1.3× the bench's peak RSS fell from ~520 to ~410 MiB at the same speed.
 * On PostgreSQL the same setting cost ~5 % of throughput for RSS already low, so it stays off
 * there, and a value the user gave (command line or NODE_OPTIONS) is kept.
 */
export function heapGrowingFlag(env: Record<string, string | undefined>, execArgv: readonly string[]): string | undefined {
  if (env.DB_HOST) return undefined;
  const given = [...execArgv, env.NODE_OPTIONS ?? ''].join(' ');
  if (/--heap[-_]growing[-_]percent/.test(given)) return undefined;
  return '--heap-growing-percent=30';
}

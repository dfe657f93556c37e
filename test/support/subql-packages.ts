import { homedir } from 'node:os';
import { join } from 'node:path';

/**
 * Where the comparisons find SubQuery's own packages, which are not dependencies of idx: the benches
 * install them there on first use (bench/subql-node.ts, bench/subql-query.ts); tests that compare
 * with them skip, saying so, when they are absent.
 */
export const SUBQL_QUERY_VERSION = '2.25.0';

export function subqlQueryDir(): string {
  return process.env.SUBQL_QUERY_DIR ?? join(homedir(), '.cache', 'idx-bench', `subql-query-${SUBQL_QUERY_VERSION}`);
}

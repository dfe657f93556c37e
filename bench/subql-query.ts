import { spawn, type ChildProcess } from 'node:child_process';
import { deadPort } from '../test/support/local-rpc-server.ts';
import { SUBQL_QUERY_VERSION, subqlQueryDir } from '../test/support/subql-packages.ts';
import { installedBin } from './subql-node.ts';

/**
 * SubQuery's own query service, the reference for the GraphQL names idx-query gives a database. It
 * is not a dependency of idx: the first use installs it from the npm registry into a cache folder
 * (SUBQL_QUERY_DIR, default ~/.cache/idx-bench/subql-query-<version>), as subql-node.ts does @subql/node.
 */
export { SUBQL_QUERY_VERSION };

export function subqlQueryBin(): Promise<string> {
  return installedBin(subqlQueryDir(), '@subql/query', SUBQL_QUERY_VERSION, 'about a minute');
}

/** A GraphQL service started for a comparison: its URL, and how to stop it. */
export interface RunningService {
  url: string;
  stop(): Promise<void>;
}

/** Starts @subql/query on `schema` (aggregates on, as its default) and waits until it answers. */
export async function startSubqlQuery(schema: string, dbEnv: Record<string, string | undefined>): Promise<RunningService> {
  const bin = await subqlQueryBin();
  const port = await deadPort();
  const child = spawn(process.execPath, [bin, '--name', schema, '--port', String(port), '--log-level', 'warn', '--disable-hot-schema'], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, TZ: 'UTC', ...dbEnv, DB_PASS: dbEnv.DB_PASS ?? 'postgres' },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  return waitForGraphql(child, `http://127.0.0.1:${port}/`, '@subql/query');
}

/** Polls `url` with a trivial query until the service answers (60 s at most), or its process exits. */
export async function waitForGraphql(child: ChildProcess, url: string, what: string): Promise<RunningService> {
  let exited: number | null | undefined;
  child.on('exit', (code) => (exited = code));
  const stop = async () => {
    if (exited !== undefined) return;
    const gone = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await gone;
  };
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (exited !== undefined) throw new Error(`${what} exited with ${exited} before it served GraphQL`);
    try {
      const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ __typename }' }) });
      if (res.ok) return { url, stop };
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  await stop();
  throw new Error(`${what} did not answer GraphQL at ${url} within 60 s`);
}

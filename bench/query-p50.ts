import { spawn, type ChildProcess } from 'node:child_process';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import type { Teardowns } from './teardowns.ts';

/** Starts the idx-query CLI (default flags) on `schema` and resolves its GraphQL URL once it is healthy; stopped at teardown. */
export async function startIdxQuery(td: Pick<Teardowns, 'teardown'>, schema: string, env: Record<string, string | undefined>): Promise<string> {
  const port = await deadPort();
  const child = spawn(process.execPath, [BIN('idx-query'), '-n', schema, '--port', String(port), '--log-level', 'warn'], {
    env: programEnv(env),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  const exited = new Promise((r) => child.once('exit', r));
  td.teardown(async () => {
    child.kill('SIGTERM');
    await exited;
  });
  const url = `http://127.0.0.1:${port}/`;
  await untilHealthy(url, child);
  return url;
}

/** Resolves once idx-query at `url` answers /health with 200; fails when it exits first or after 30 s. */
export async function untilHealthy(url: string, child: ChildProcess): Promise<void> {
  for (
    let i = 0;
    (await fetch(`${url}health`).then(
      (r) => r.status,
      () => 0,
    )) !== 200;
    i++
  ) {
    if (i > 600 || child.exitCode !== null) throw new Error('idx-query did not start');
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** POSTs a GraphQL query; throws on GraphQL errors. */
export function graphqlPost(url: string, query: string): () => Promise<void> {
  const body = JSON.stringify({ query });
  return async () => {
    const answer = (await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.json())) as { errors?: unknown };
    if (answer.errors !== undefined) throw new Error(`${query}: ${JSON.stringify(answer.errors)}`);
  };
}

/** `n` requests one after another (after one untimed): their times in ms, sorted. */
export async function sequentialTimes(request: () => Promise<unknown>, n: number): Promise<number[]> {
  await request();
  const times: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await request();
    times.push(performance.now() - t0);
  }
  return times.sort((a, b) => a - b);
}

/** The value below which `p` of the sorted values lie. */
export const percentile = (sorted: readonly number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

// Helpers of the Docker tests (`npm run test:docker`): commands, docker compose, the chain's and
// idx-query's HTTP answers, and waiting for a condition.
import { spawn } from 'node:child_process';
import { REPO } from '../support/idx-programs.ts';

export interface Run {
  code: number | null;
  output: string;
}

export function run(command: string, args: readonly string[], env: Record<string, string> = {}, timeoutMs = 15 * 60_000): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'], cwd: REPO, env: { ...process.env, ...env } });
    let output = '';
    const keep = (chunk: Buffer) => void (output = (output + chunk.toString()).slice(-20_000));
    child.stdout.on('data', keep);
    child.stderr.on('data', keep);
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.on('error', (err) => ((output += String(err)), resolve({ code: 127, output })));
    child.on('close', (code) => (clearTimeout(timer), resolve({ code, output })));
  });
}

/** `docker compose` (v2) when there is one, else docker-compose 1.29. */
export async function composeCommand(): Promise<string[]> {
  if ((await run('docker', ['compose', 'version'])).code === 0) return ['docker', 'compose'];
  if ((await run('docker-compose', ['version'])).code === 0) return ['docker-compose'];
  throw new Error('neither `docker compose` nor `docker-compose` is installed');
}

export async function rpc<T>(port: number, method: string, params: unknown[]): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const body = (await res.json()) as { result?: T; error?: unknown };
  if (body.error !== undefined) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result as T;
}

export async function gql<T = any>(port: number, query: string): Promise<T> {
  const res = await fetch(`http://127.0.0.1:${port}/`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(10_000),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (body.errors !== undefined) throw new Error(`GraphQL: ${JSON.stringify(body.errors)}`);
  return body.data as T;
}

export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs: number, everyMs = 500): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const value = await probe();
      if (value !== undefined) return value;
    } catch (err) {
      last = err;
    }
    await new Promise((r) => setTimeout(r, everyMs));
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${String(last)}` : ''}`);
}

export const ok = async (url: string) => (await fetch(url, { signal: AbortSignal.timeout(5_000) }).catch(() => undefined))?.ok === true || undefined;

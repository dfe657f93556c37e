// Helpers of the Docker tests (`npm run test:docker`): commands, docker compose, the chain's and
// idx-query's HTTP answers, and waiting for a condition.
import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../../devchain/start-anvil.ts';
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

/** The host ports of a stack on the host's network. */
export interface Ports {
  postgres: number;
  chain: number;
  node: number;
  query: number;
}

export interface Compose {
  /** `docker compose -p <project> -f <variant> …` with `env` added to this process's environment */
  dc(env: Record<string, string>, ...args: string[]): Promise<Run>;
  /** the same, throwing with the output when it fails */
  must(env: Record<string, string>, ...args: string[]): Promise<string>;
  /** `down --volumes` (with `env`: compose refuses any command while a variable the file requires is unset); what compose said when that failed */
  down(env: Record<string, string>): Promise<string | undefined>;
}

export interface ComposeStack extends Compose {
  ports: Ports;
  /** the folder the variant file is in; removed by `down()` */
  work: string;
  project: string;
  /** compose over the same file under another project name */
  as(project: string): Compose;
  /** `down --volumes` and the folder removed; what compose said when that failed */
  down(env: Record<string, string>): Promise<string | undefined>;
}

/**
 * A compose file of docker/ rewritten by `variant` for free host ports into a temp folder, and compose
 * over it under a project name of its own; undefined (the test failed saying why) without dockerd.
 */
export async function composeStack(
  t: { fail(message: string): void },
  name: string,
  source: string,
  variant: (source: string, ports: Ports) => string,
): Promise<ComposeStack | undefined> {
  if ((await run('docker', ['info'])).code !== 0) {
    t.fail('dockerd is not running (docker info failed): start it, or run the rest of the suite with npm test');
    return undefined;
  }
  const command = await composeCommand();
  const work = await mkdtemp(join(tmpdir(), `${name}-`));
  const ports: Ports = { postgres: await freePort(), chain: await freePort(), node: await freePort(), query: await freePort() };
  const file = join(work, source);
  await writeFile(file, variant(await readFile(join(REPO, 'docker', source), 'utf8'), ports));
  const as = (project: string): Compose => {
    const dc = (env: Record<string, string>, ...args: string[]) => run(command[0]!, [...command.slice(1), '-p', project, '-f', file, ...args], env);
    return {
      dc,
      async must(env, ...args) {
        const r = await dc(env, ...args);
        if (r.code !== 0) throw new Error(`${command.join(' ')} ${args.join(' ')} exited with ${r.code}:\n${r.output.slice(-4000)}`);
        return r.output;
      },
      async down(env) {
        const down = await dc(env, 'down', '--volumes', '--remove-orphans', '--timeout', '5');
        return down.code === 0 ? undefined : down.output.slice(-2000);
      },
    };
  };
  const project = `${name}-${process.pid}`;
  const own = as(project);
  return {
    ...own,
    ports,
    work,
    project,
    as,
    async down(env) {
      const failed = await own.down(env);
      await rm(work, { recursive: true, force: true });
      return failed;
    },
  };
}

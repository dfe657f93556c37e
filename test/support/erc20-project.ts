import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { cp, mkdir, mkdtemp, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeFunctionData, decodeFunctionResult } from 'viem/utils';
import { testErc20Abi } from '../../devchain/contracts/test-erc20.artifact.ts';
import type { Db } from '../../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { compiledHash } from '../../scripts/compile.ts';

const run = promisify(execFile);
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = (name: string) => join(REPO, 'bin', `${name}.js`);

/**
 * Spawned idx programs run compiled (dist/), as users run them: the suite's before step
 * (test/support/before-suite.ts) compiles dist/ whenever it is older than the sources.
 * `IDX_COMPILED=0` in the environment runs them from the TypeScript instead (to compare).
 */
export const PROGRAM_ENV = { IDX_COMPILED: process.env.IDX_COMPILED === '0' ? '0' : '1' };

/** The environment of a spawned idx program: PATH, the compiled-program switch, and what the test gives it. */
export function programEnv(env: Record<string, string | undefined> = {}): Record<string, string | undefined> {
  return { PATH: process.env.PATH, ...PROGRAM_ENV, ...env };
}

/** Runs `idx <args>` (init, codegen, build) in `cwd`. */
export async function idxCli(cwd: string, ...args: string[]): Promise<void> {
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), ...args], { cwd, env: programEnv() });
}

interface Teardown {
  teardown(fn: () => unknown): void;
}

/**
 * The starter ERC20 project after `idx init erc20` + `codegen` + `build`, made once for every test
 * file of a run (by the before step, or by the first file that needs it) in a folder named by a
 * hash of what it is made from: the compiled programs and the starter's sources. Never written to:
 * tests get copies.
 */
export async function sharedErc20Starter(): Promise<string> {
  const hash = createHash('sha256').update(compiledHash() ?? 'unstamped');
  const starter = join(REPO, 'examples', 'erc20');
  for (const file of (await readdir(starter, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
    .sort()) {
    hash
      .update(`${relative(starter, file)}\0`)
      .update(await readFile(file))
      .update('\0');
  }
  const home = join(tmpdir(), `idx-test-starter-${hash.digest('hex').slice(0, 16)}`);
  const dir = join(home, 'erc20');
  if (existsSync(join(dir, 'dist', 'index.js'))) return dir;
  await mkdir(home, { recursive: true });
  // Built aside and renamed into place: a concurrent file either wins the rename or uses the winner's.
  const building = await mkdtemp(join(home, 'building-'));
  try {
    await idxCli(building, 'init', 'erc20');
    await idxCli(join(building, 'erc20'), 'codegen');
    await idxCli(join(building, 'erc20'), 'build');
    await rename(join(building, 'erc20'), dir).catch((err: NodeJS.ErrnoException) => {
      if (!existsSync(join(dir, 'dist', 'index.js'))) throw err;
    });
  } finally {
    await rm(building, { recursive: true, force: true });
  }
  return dir;
}

/** A copy of the built starter ERC20 project, in a temp folder removed on teardown. */
export async function buildErc20Project(t: Teardown): Promise<string> {
  return copyProject(t, await sharedErc20Starter());
}

/** A copy of a built project (its own `.idx-data`), removed on teardown. */
export async function copyProject(t: Teardown, dir: string): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-e2e-copy-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  const copy = join(parent, 'erc20');
  await cp(dir, copy, { recursive: true, filter: (src) => !src.includes('.idx-data') });
  return copy;
}

export async function rebuild(dir: string): Promise<void> {
  await idxCli(dir, 'build');
}

export async function balanceOf(client: RpcClient, token: string, account: string, height: number): Promise<bigint> {
  const data = encodeFunctionData({ abi: testErc20Abi, functionName: 'balanceOf', args: [account as `0x${string}`] });
  const result = await client.request<`0x${string}`>('eth_call', [{ to: token, data }, `0x${height.toString(16)}`]);
  return decodeFunctionResult({ abi: testErc20Abi, functionName: 'balanceOf', data: result }) as bigint;
}

/** Every version row of the ERC20 tables, without the wall-clock columns, in a stable order. */
export async function erc20Tables(db: Db, schema: string) {
  const s = quoteIdent(schema);
  const transfers = await execute(
    db.kysely,
    `select id, block_height::text, timestamp, from_id, to_id, value::text, transaction_hash, contract_address, __block_range::text as range
       from ${s}.transfers order by id, lower(__block_range)`,
  );
  const accounts = await execute(db.kysely, `select id, balance::text, __block_range::text as range from ${s}.accounts order by id, lower(__block_range)`);
  const starters = await execute(db.kysely, `select id, block_height::text, __block_range::text as range from ${s}.starter_entities order by id`);
  return { transfers, accounts, starters };
}

/** A port to start from; the node moves to the next free one when it is taken. */
export function freePortGuess(): number {
  return 20000 + Math.floor(Math.random() * 20000);
}

/** The port a node says it serves /meta on: the one asked for, or the next free one when that was busy. */
export function servedPort(output: string): number | undefined {
  const port = /serving \/health.* on http:\/\/localhost:(\d+)/.exec(output)?.[1];
  return port === undefined ? undefined : Number(port);
}

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** the last `lastProcessedHeight` /meta reported */
  lastSeen?: number;
  /** the run outlived `deadlineMs` and was killed: `output` says where it was */
  timedOut?: true;
}

/**
 * `idx-node` spawned as a user runs it, its output collected, and `onHeight` told every
 * `lastProcessedHeight` its /meta reports, polled every `everyMs` on the port it says it serves.
 */
export function spawnWatchedNode(
  dir: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
  onHeight: (height: number) => void,
  everyMs: number,
) {
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN('idx-node'), '-f', dir, '-p', String(freePortGuess()), ...args], {
    env: programEnv(env),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const poll = setInterval(async () => {
    const port = servedPort(output);
    if (port === undefined) return;
    const meta = (await fetch(`http://127.0.0.1:${port}/meta`, { signal: AbortSignal.timeout(5_000) })
      .then((r) => r.json())
      .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
    if (meta?.lastProcessedHeight !== undefined) onHeight(meta.lastProcessedHeight);
  }, everyMs);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal });
    });
  });
  return { child, output: () => output, exited };
}

/**
 * Runs `idx-node` as a user would, watching /meta: SIGTERM once `until` is processed, SIGKILL once
 * `killAt` is; otherwise it runs until it exits by itself. A run still going after `deadlineMs` is
 * killed and marked `timedOut`, so a stuck node fails its test with its log instead of the whole
 * file timing out silently.
 */
export async function runNodeCli(
  dir: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
  opts: {
    until?: number;
    killAt?: number;
    /** `killAt` waits for this too: the node is killed once both have come (a test's checks on the running node done) */
    killAfter?: Promise<unknown>;
    deadlineMs?: number;
  } = {},
): Promise<CliRun> {
  let lastSeen: number | undefined;
  let killable = opts.killAfter === undefined;
  void opts.killAfter?.then(() => (killable = true));
  let stopping = false;
  let timedOut = false;
  const node = spawnWatchedNode(
    dir,
    env,
    args,
    (h) => {
      lastSeen = h;
      if (opts.killAt !== undefined && killable && h >= opts.killAt) node.child.kill('SIGKILL');
      // Once, as a service manager does: a second signal means "quit at once".
      else if (opts.until !== undefined && h >= opts.until && !stopping) {
        stopping = true;
        node.child.kill('SIGTERM');
      }
    },
    20,
  );
  const deadline = setTimeout(() => {
    timedOut = true;
    node.child.kill('SIGKILL');
  }, opts.deadlineMs ?? 150_000);
  const { code, signal } = await node.exited;
  clearTimeout(deadline);
  const run: CliRun = { code, signal, output: node.output() };
  // set by the watcher and the deadline, in callbacks
  if (lastSeen !== undefined) run.lastSeen = lastSeen;
  if (timedOut) run.timedOut = true;
  return run;
}

/**
 * Makes each Transfer handler take about `ms`, so a run lasts long enough to be interrupted. A
 * blocking wait, not a `Date.now()` busy loop: the sandbox's clock is the block's, not the wall's.
 */
export async function slowDownTransfers(dir: string, ms: number): Promise<void> {
  const mapping = join(dir, 'src', 'mappings', 'erc20.ts');
  const source = await readFile(mapping, 'utf8');
  const patched = source.replace(
    /(export async function handleTransfer\([^)]*\)[^{]*\{)/,
    `$1\n  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ${ms});`,
  );
  if (patched === source) throw new Error('handleTransfer not found in the starter mapping');
  await writeFile(mapping, patched);
  await rebuild(dir);
}

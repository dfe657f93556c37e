import { execFile, spawn } from 'node:child_process';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { encodeFunctionData, decodeFunctionResult } from 'viem';
import { testErc20Abi } from '../../devchain/contracts/test-erc20.artifact.ts';
import type { Db } from '../../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';

const run = promisify(execFile);
export const REPO = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const BIN = (name: string) => join(REPO, 'bin', `${name}.js`);

interface Teardown {
  teardown(fn: () => unknown): void;
}

/** `idx init` + `codegen` + `build` of the starter ERC20 project, in a temp folder removed on teardown. */
export async function buildErc20Project(t: Teardown): Promise<string> {
  const parent = await mkdtemp(join(tmpdir(), 'idx-e2e-'));
  t.teardown(() => rm(parent, { recursive: true, force: true }));
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'init', 'erc20'], { cwd: parent });
  const dir = join(parent, 'erc20');
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'codegen'], { cwd: dir });
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'build'], { cwd: dir });
  return dir;
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
  await run(process.execPath, ['--no-node-snapshot', BIN('idx'), 'build'], { cwd: dir });
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

export interface CliRun {
  code: number | null;
  signal: NodeJS.Signals | null;
  output: string;
  /** the last `lastProcessedHeight` /meta reported */
  lastSeen?: number;
}

/**
 * Runs `idx-node` as a user would, watching /meta: SIGTERM once `until` is processed, SIGKILL
 * once `killAt` is; otherwise it runs until it exits by itself.
 */
export function runNodeCli(
  dir: string,
  env: Record<string, string | undefined>,
  args: readonly string[],
  opts: { until?: number; killAt?: number } = {},
): Promise<CliRun> {
  const port = freePortGuess();
  const child = spawn(process.execPath, ['--no-node-snapshot', BIN('idx-node'), '-f', dir, '-p', String(port), ...args], {
    env: { PATH: process.env.PATH, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  let lastSeen: number | undefined;
  let stopping = false;
  const poll = setInterval(async () => {
    const meta = (await fetch(`http://127.0.0.1:${port}/meta`)
      .then((r) => r.json())
      .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
    const h = meta?.lastProcessedHeight;
    if (h === undefined) return;
    lastSeen = h;
    if (opts.killAt !== undefined && h >= opts.killAt) child.kill('SIGKILL');
    // Once, as a service manager does: a second signal means "quit at once".
    else if (opts.until !== undefined && h >= opts.until && !stopping) {
      stopping = true;
      child.kill('SIGTERM');
    }
  }, 20);
  return new Promise((resolve) => {
    child.on('exit', (code, signal) => {
      clearInterval(poll);
      resolve({ code, signal, output, ...(lastSeen !== undefined && { lastSeen }) });
    });
  });
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

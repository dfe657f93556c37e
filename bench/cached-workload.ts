import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { makeErc20Workload, type Erc20Workload, type Erc20WorkloadOptions } from '../devchain/make-erc20-workload.ts';
import { startAnvil, type Anvil } from '../devchain/start-anvil.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import type { Teardowns } from './teardowns.ts';

/** the cache of built chains, shared with the other benchmarks' downloads (BENCH_CACHE_DIR moves it) */
export const benchCacheDir = (): string => process.env.BENCH_CACHE_DIR ?? join(homedir(), '.cache', 'idx-bench');

/** empty blocks mined after the workload, so that it is final for an indexer's default confirmations */
const TRAILING_BLOCKS = 0x40;
/** anvil writes a large chain (20,000 blocks ≈ 1 GiB of JSON) on exit */
const DUMP_TIMEOUT_MS = 10 * 60_000;
/** anvil's --state-interval, in seconds: longer than any build */
const WEEK_S = 7 * 24 * 3600;

/**
 * An anvil chain holding the ERC20 workload of `options`, plus TRAILING_BLOCKS empty blocks. Built
 * once per machine: the chain anvil dumps on exit (blocks, receipts and logs included) is kept in
 * the bench cache under a name made of the options and anvil's version, and later runs start anvil
 * from it (seconds, where building 20,000 blocks takes ~11 minutes). BENCH_WORKLOAD_CACHE=0 builds
 * afresh without the cache.
 */
export async function cachedErc20Workload(td: Teardowns, options: Erc20WorkloadOptions): Promise<{ anvil: Anvil; workload: Erc20Workload; built: boolean }> {
  const dir = join(benchCacheDir(), workloadKey(options));
  const stateFile = join(dir, 'state.json');
  const workloadFile = join(dir, 'workload.json');
  const useCache = process.env.BENCH_WORKLOAD_CACHE !== '0';
  if (useCache && existsSync(stateFile) && existsSync(workloadFile)) {
    const anvil = await startAnvil({ args: ['--load-state', stateFile], startTimeoutMs: DUMP_TIMEOUT_MS });
    td.teardown(() => anvil.stop());
    return { anvil, workload: JSON.parse(await readFile(workloadFile, 'utf8')) as Erc20Workload, built: false };
  }
  if (!useCache) {
    const anvil = await startAnvil();
    td.teardown(() => anvil.stop());
    return { anvil, workload: await build(anvil, options), built: true };
  }
  await mkdir(dir, { recursive: true });
  const partial = join(dir, `state.json.${process.pid}`);
  // dumped once, on exit: with --dump-state alone anvil also dumps every few seconds, rewriting a growing file while the
  // chain is built; and no account states of past blocks (--prune-history): the indexer reads only blocks, receipts
  // and logs, which are kept
  const building = await startAnvil({
    args: ['--dump-state', partial, '--state-interval', String(WEEK_S), '--prune-history'],
    stopTimeoutMs: DUMP_TIMEOUT_MS,
  });
  let workload: Erc20Workload;
  try {
    workload = await build(building, options);
  } finally {
    await building.stop();
  }
  if (!existsSync(partial)) throw new Error(`anvil did not dump the chain to ${partial} on exit`);
  await rename(partial, stateFile);
  await writeFile(workloadFile, JSON.stringify(workload));
  const anvil = await startAnvil({ args: ['--load-state', stateFile], startTimeoutMs: DUMP_TIMEOUT_MS }).catch(async (e: unknown) => {
    await rm(dir, { recursive: true, force: true });
    throw e;
  });
  td.teardown(() => anvil.stop());
  return { anvil, workload, built: true };
}

/** The cache entry's name: every option that shapes the chain, and the anvil that built it (its dump format). */
export function workloadKey(options: Erc20WorkloadOptions): string {
  const anvilVersion = (createRequire(import.meta.url)('@foundry-rs/anvil-linux-amd64/package.json') as { version: string }).version;
  const o = options;
  return `erc20-workload-b${o.blocks}-t${o.transfersPerBlock}-a${o.approvalsPerBlock}-s${o.senders}-r${o.recipients}-seed${o.seed ?? 1}-trail${TRAILING_BLOCKS}-anvil${anvilVersion}`;
}

async function build(anvil: Anvil, options: Erc20WorkloadOptions): Promise<Erc20Workload> {
  if (options.token !== undefined) throw new Error('a cached workload deploys its own token');
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const t0 = performance.now();
  const w = await makeErc20Workload(client, options);
  await client.request('anvil_mine', [`0x${TRAILING_BLOCKS.toString(16)}`]);
  console.log(
    `workload: ${options.blocks} blocks × (${options.transfersPerBlock} Transfers + ${options.approvalsPerBlock} Approvals) on anvil in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
  );
  return w;
}

import t from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { forceClean } from '../apps/node/start-up/history-commands.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { blockDataCalls, startCountingProxy, type CountedCall } from './support/counting-proxy.ts';
import { erc20Tables } from './support/erc20-tables.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { indexInProcess, openIndexedDb } from './support/index-in-process.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { copyProject } from './support/project-copies.ts';

exitWhenDone();

// The RPC cache on anvil: a run keeps what it read of the final chain, and a force-clean and
// re-run, a second project over the same chain, and a restart read it instead of the endpoint.
const { anvil, workload, built } = await setupErc20Chain(t, 30);
const proxy = await startCountingProxy(t, anvil.url);
const cacheRoot = await mkdtemp(join(tmpdir(), 'idx-rpc-cache-e2e-'));
t.teardown(() => rm(cacheRoot, { recursive: true, force: true }));
const SCHEMA = 'erc20';

/** Indexes `dir` (PGlite) to the workload's end through the counting proxy; the block data calls it made. */
async function indexAll(dir: string, args: readonly string[], stopAt = workload.toBlock): Promise<CountedCall[]> {
  proxy.reset();
  await indexInProcess('pglite', dir, proxy.url, ['--db-schema', SCHEMA, '--batch-size', '7', ...args], stopAt);
  return blockDataCalls(proxy.calls());
}
async function tables(dir: string) {
  const db = await openIndexedDb(t, 'pglite', dir, []);
  try {
    return await erc20Tables(db, SCHEMA);
  } finally {
    await db.close();
  }
}
const cached = ['--rpc-cache', cacheRoot];

t.test('a force-clean and re-run, and a second project, make no block data call and index the same rows', async (t) => {
  const dir = await copyProject(t, built);
  const first = await indexAll(dir, cached);
  t.ok(first.length > 0, `the first run asked the chain (${first.length} block data calls)`);
  const expected = await tables(dir);
  t.ok(expected.transfers.length > 0);

  await forceClean(
    { ...nodeOptions(dir, proxy.url, ['--db-schema', SCHEMA]), idx: dir },
    createLogger({ level: 'silent', format: 'colored', colors: false, write: () => {} }),
    {},
  );
  t.same(await indexAll(dir, cached), [], 'the re-run: every block, log and receipt from the cache');
  t.same(await tables(dir), expected, 'the same rows');

  const other = await copyProject(t, built);
  t.same(await indexAll(other, [...cached, '--workers', '2']), [], 'another project over the same chain shares it, in --workers threads too');
  t.same(await tables(other), expected);

  const off = await copyProject(t, built);
  t.same((await indexAll(off, ['--rpc-cache=false'])).length, first.length, '--rpc-cache=false: everything asked again');
});

t.test('a restart after a stop midway is answered from what the first run fetched', async (t) => {
  const root = await mkdtemp(join(tmpdir(), 'idx-rpc-cache-restart-'));
  t.teardown(() => rm(root, { recursive: true, force: true }));
  const dir = await copyProject(t, built);
  const mid = Math.floor((workload.startBlock + workload.toBlock) / 2);
  const before = await indexAll(dir, ['--rpc-cache', root], mid);
  const fetchedTo = Math.max(...before.filter((c) => c.method === 'eth_getLogs').map((c) => Number((c.params[0] as { toBlock: string }).toBlock)));
  t.ok(fetchedTo >= mid, `the first run fetched to ${fetchedTo}`);
  const after = await indexAll(dir, ['--rpc-cache', root]);
  const refetched = after.filter((c) => {
    const p = c.params[0];
    const at = c.method === 'eth_getLogs' ? Number((p as { fromBlock: string }).fromBlock) : Number(p);
    return at <= fetchedTo;
  });
  t.same(refetched, [], `the restart asked nothing at or below ${fetchedTo} (${before.length} block data calls before the stop, ${after.length} after)`);
  const fresh = await copyProject(t, built);
  await indexAll(fresh, ['--rpc-cache=false']);
  t.same(await tables(dir), await tables(fresh), 'and indexed what a run without the cache does');
});

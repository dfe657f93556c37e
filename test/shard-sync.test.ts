import { spawn } from 'node:child_process';
import t, { type Test } from 'tap';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { ANVIL_DEV_ACCOUNT } from '../devchain/start-anvil.ts';
import { createRpcClient, type RpcClient } from '../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from './support/anvil.ts';
import { BACKENDS, envFor } from './support/node-backends.ts';
import { BIN, programEnv } from './support/idx-programs.ts';
import { startRpcProxy } from './support/local-rpc-server.ts';
import { call, post, shardPlace, startShard, waitForHeight, type ShardPlace } from './support/shard.ts';

const hex = (n: number) => `0x${n.toString(16)}`;
const kind = BACKENDS[BACKENDS.length - 1]!;

/** Blocks `from..to` (with transactions), their receipts and all their logs: the shard's answers equal the upstream's. */
async function sameData(t: Test, shardUrl: string, upstream: string, from: number, to: number): Promise<void> {
  const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
  const batch = [
    ...heights.map((h, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_getBlockByNumber', params: [hex(h), true] })),
    ...heights.map((h, i) => ({ jsonrpc: '2.0', id: 10_000 + i, method: 'eth_getBlockReceipts', params: [hex(h)] })),
    { jsonrpc: '2.0', id: 99_999, method: 'eth_getLogs', params: [{ fromBlock: hex(from), toBlock: hex(to) }] },
  ];
  const [ours, theirs] = await Promise.all([post(shardUrl, batch), post(upstream, batch)]);
  const differing = (ours.json as { id: number }[]).filter((a, i) => JSON.stringify(a) !== JSON.stringify(theirs.json[i])).map((a) => a.id);
  t.same(differing, [], `blocks ${from}..${to}, their receipts and logs are the upstream's`);
}

function runShardCli(place: ShardPlace, upstream: string, port: number, args: readonly string[]) {
  const child = spawn(
    process.execPath,
    [
      BIN('idx-shard'),
      '--upstream',
      upstream,
      '--data-dir',
      place.dataDir,
      '--db-schema',
      place.schema,
      '-p',
      String(port),
      '--poll-interval',
      '50',
      '--output-fmt',
      'json',
      ...args,
    ],
    { env: programEnv(envFor(place.kind)), stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  child.stdout.on('data', (d) => (output += d));
  child.stderr.on('data', (d) => (output += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  return { child, exited, output: () => output };
}

t.test(`${kind}: SIGKILL while syncing loses nothing; a restart resumes and ends with the upstream's data`, async (t) => {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  await makeErc20Workload(client, { blocks: 60, transfersPerBlock: 6, approvalsPerBlock: 1, senders: 4, recipients: 10 });
  const head = Number(await client.request('eth_blockNumber'));
  const place = await shardPlace(t, kind);
  const port = 20000 + Math.floor(Math.random() * 20000);
  const url = `http://127.0.0.1:${port}`;

  const first = runShardCli(place, anvil.url, port, ['--batch-size', '3']);
  t.teardown(() => void first.child.kill('SIGKILL'));
  let killedAt = -1;
  for (;;) {
    const n = Number((await call(url, 'eth_blockNumber').catch(() => undefined))?.result ?? -1);
    if (n >= 20) {
      first.child.kill('SIGKILL');
      killedAt = n;
      break;
    }
    const done = await Promise.race([first.exited.then(() => true), new Promise((r) => setTimeout(() => r(false), 20))]);
    if (done) t.fail(`idx-shard exited early:\n${first.output()}`);
  }
  t.match(await first.exited, { signal: 'SIGKILL' });
  t.ok(killedAt < head, `killed mid-sync, at block ${killedAt} of ${head}`);

  const second = runShardCli(place, anvil.url, port, ['--batch-size', '25']);
  t.teardown(() => void second.child.kill('SIGKILL'));
  await waitForHeight(url, head, 120_000);
  const resumedFrom = /synced up to (\d+)/.exec(second.output())?.[1];
  t.ok(Number(resumedFrom) >= killedAt, `resumed from the last batch written (${resumedFrom}), not from the start`);
  await sameData(t, url, anvil.url, 0, head);
  second.child.kill('SIGTERM');
  t.match(await second.exited, { code: 0 }, 'SIGTERM stops it cleanly');
});

t.test(`${kind}: upstream reorgs near the head replace the orphaned blocks`, async (t) => {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  const send = (value: number) => client.request('eth_sendTransaction', [{ from: ANVIL_DEV_ACCOUNT, to: `0x${'42'.repeat(20)}`, value: hex(value) }]);
  await client.request('anvil_mine', ['0x5']);
  const shard = await startShard(t, anvil.url, await shardPlace(t, kind), ['--batch-size', '2']);
  await waitForHeight(shard.url, 5);

  // a longer competing chain from block 5: 6..9 replace 6..8
  const snapshot = await client.request('evm_snapshot');
  for (const v of [1, 2, 3]) await send(v);
  await waitForHeight(shard.url, 8);
  const orphanTx = (await client.request<{ transactions: string[] }>('eth_getBlockByNumber', ['0x7', false])).transactions[0]!;
  await client.request('evm_revert', [snapshot]);
  await mineAt(client, 5);
  for (const v of [11, 12, 13, 14]) await send(v);
  await waitForHeight(shard.url, 9);
  await waitForSameHash(shard.url, anvil.url, 9);
  await sameData(t, shard.url, anvil.url, 0, 9);
  t.match(await call(shard.url, 'eth_getTransactionByHash', [orphanTx]), { result: null }, 'an orphaned transaction is gone');
  t.ok(
    shard.lines.some((l) => /reorganised: blocks 6\.\.8 were orphaned/.test(l)),
    'the reorg is logged',
  );

  // a competing block at the same height: found by the check of the newest block
  const again = await client.request('evm_snapshot');
  await send(21);
  await waitForHeight(shard.url, 10);
  await client.request('evm_revert', [again]);
  await mineAt(client, 60);
  await send(22);
  await waitForSameHash(shard.url, anvil.url, 10);
  await sameData(t, shard.url, anvil.url, 0, 10);
});

t.test(`${kind}: an upstream without eth_getBlockReceipts: receipts are fetched per transaction`, async (t) => {
  const anvil = await anvilForTest(t);
  const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
  await makeErc20Workload(client, { blocks: 6, transfersPerBlock: 3, approvalsPerBlock: 1, senders: 2, recipients: 3 });
  const head = Number(await client.request('eth_blockNumber'));
  const proxy = await startRpcProxy(t, anvil.url, (c) =>
    c.method === 'eth_getBlockReceipts' ? { error: { code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' } } : undefined,
  );
  const shard = await startShard(t, proxy.url, await shardPlace(t, kind), ['--batch-size', '4']);
  await waitForHeight(shard.url, head);
  await sameData(t, shard.url, anvil.url, 0, head);
  t.ok(
    shard.lines.some((l) => /no eth_getBlockReceipts/.test(l)),
    'the fallback is logged once',
  );
  t.ok(proxy.bodies.some((b) => JSON.stringify(b).includes('eth_getTransactionReceipt')));
});

/** The next block's timestamp this many seconds after the current one, so a re-mined block differs. */
async function mineAt(client: RpcClient, seconds: number): Promise<void> {
  const latest = await client.request<{ timestamp: string }>('eth_getBlockByNumber', ['latest', false]);
  await client.request('anvil_setNextBlockTimestamp', [hex(Number(latest.timestamp) + seconds)]);
}

async function waitForSameHash(shardUrl: string, upstream: string, height: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const [ours, theirs] = await Promise.all([
      call(shardUrl, 'eth_getBlockByNumber', [hex(height), false]),
      call(upstream, 'eth_getBlockByNumber', [hex(height), false]),
    ]);
    if (ours.result?.hash !== undefined && ours.result.hash === theirs.result?.hash) return;
    if (Date.now() > deadline) throw new Error(`block ${height} of the shard is ${ours.result?.hash}, the upstream's ${theirs.result?.hash}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

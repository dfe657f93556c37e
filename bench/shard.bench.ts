import { spawn } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { toEventSelector } from 'viem/utils';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor } from '../test/support/node-backends.ts';
import { freshPgliteDir, uniqueSchemaName } from '../test/support/test-backends.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import type { Benchmark } from './run.ts';
import { failures, postLoad } from './post-load.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';

/**
 * idx-shard on the ERC20 workload (BLOCKS blocks × 20 Transfers + 2 Approvals): how fast it syncs
 * from anvil (blocks/s, default flags: batches of 100 blocks), then how many eth_getBlockByNumber
 * and eth_getLogs requests per second it answers, against anvil answering the same requests.
 */
const BLOCKS = Number(process.env.BENCH_SHARD_BLOCKS ?? 1000);
const SECONDS = Number(process.env.BENCH_SHARD_SECONDS ?? 5);
const CONNECTIONS = 10;

async function load(label: string, url: string, body: unknown): Promise<void> {
  const r = await postLoad(url, JSON.stringify(body), CONNECTIONS, SECONDS);
  const failed = failures(r);
  console.log(`  ${label}: ${r.requests.average.toFixed(0)} requests/s, p50 ${r.latency.p50} ms, p99 ${r.latency.p99} ms${failed}`);
}

/** The idx-shard CLI in its own process, as a user runs it (the load generator must not share its event loop). */
async function syncAndServe(
  label: string,
  anvilUrl: string,
  head: number,
  env: Record<string, string | undefined>,
  place: { dataDir: string; schema: string },
  mid: number,
): Promise<void> {
  const port = await deadPort();
  const child = spawn(
    process.execPath,
    [
      BIN('idx-shard'),
      '--upstream',
      anvilUrl,
      '--data-dir',
      place.dataDir,
      '--db-schema',
      place.schema,
      '-p',
      String(port),
      '--log-level',
      'warn',
      '--poll-interval',
      '100',
    ],
    {
      env: programEnv(env),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  const exited = new Promise((r) => child.once('exit', r));
  try {
    const url = `http://127.0.0.1:${port}`;
    const client = createRpcClient({ endpoints: [{ url }], retries: 0 });
    const height = () => client.request('eth_blockNumber').then(Number, () => -1);
    while ((await height()) < 0) await new Promise((r) => setTimeout(r, 20));
    const started = performance.now();
    const from = await height();
    while ((await height()) < head) await new Promise((r) => setTimeout(r, 20));
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `${label}: synced ${head - from} blocks in ${seconds.toFixed(1)} s = ${((head - from) / seconds).toFixed(0)} blocks/s (${(((head - from) * 22) / seconds).toFixed(0)} transactions/s with their receipts and logs)`,
    );
    await serve(label, url, mid);
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

async function serve(label: string, url: string, mid: number): Promise<void> {
  const hex = (n: number) => `0x${n.toString(16)}`;
  await load(`${label} eth_getBlockByNumber (hashes)`, url, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [hex(mid), false] });
  await load(`${label} eth_getBlockByNumber (full)`, url, { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [hex(mid), true] });
  await load(`${label} eth_getLogs (10 blocks, Transfer topic, 200 logs)`, url, {
    jsonrpc: '2.0',
    id: 1,
    method: 'eth_getLogs',
    params: [{ fromBlock: hex(mid), toBlock: hex(mid + 9), topics: [toEventSelector('Transfer(address,address,uint256)')] }],
  });
}

const bench: Benchmark = {
  name: 'shard: sync the ERC20 workload, then serve',
  async run() {
    const anvil = await startAnvil();
    const cleanups: (() => Promise<unknown>)[] = [() => anvil.stop()];
    try {
      const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
      const t0 = performance.now();
      const w = await makeErc20Workload(client, { blocks: BLOCKS, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 20, recipients: 1000 });
      const head = Number(await client.request('eth_blockNumber'));
      console.log(
        `workload: ${BLOCKS} blocks × (20 Transfers + 2 Approvals) on anvil in ${((performance.now() - t0) / 1000).toFixed(1)} s; ${CONNECTIONS} connections, ${SECONDS} s per load`,
      );
      const mid = w.fromBlock + Math.floor((w.toBlock - w.fromBlock) / 2);
      await serve('anvil', anvil.url, mid);

      if (process.env.DB_HOST) {
        const env = envFor('postgres');
        const schema = uniqueSchemaName('idx_shard_bench');
        cleanups.push(async () => {
          const db = await createDb({ env });
          await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
          await db.close();
        });
        await syncAndServe('shard on PostgreSQL', anvil.url, head, env, { dataDir: '.unused', schema }, mid);
      } else {
        console.log('shard on PostgreSQL: skipped (set DB_HOST)');
      }
      const dataDir = await freshPgliteDir();
      cleanups.push(() => rm(dataDir, { recursive: true, force: true }));
      await syncAndServe('shard on PGlite', anvil.url, head, {}, { dataDir, schema: 'idx_shard' }, mid);
    } finally {
      for (const c of cleanups.reverse()) await c().catch(() => undefined);
    }
  },
};

export default bench;

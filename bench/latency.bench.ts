import { spawn, type ChildProcess } from 'node:child_process';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject } from '../test/support/project-copies.ts';
import { freePortGuess } from '../test/support/node-ports.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

/**
 * Head latency: anvil mines a block of 20 Transfers every second; idx-node follows the head with
 * --unfinalized-blocks and --subscription, idx-query pushes each new transfer to a graphql-ws
 * subscriber. Per block, the time from the block being mined (the mining call's answer) to the
 * first of its transfers received by the subscriber. PostgreSQL when DB_HOST is set, else PGlite.
 */
const BLOCKS = Number(process.env.BENCH_LATENCY_BLOCKS ?? 200);
const INTERVAL_MS = 1000;

function spawnProgram(name: string, args: readonly string[], env: Record<string, string | undefined>): ChildProcess {
  return spawn(process.execPath, ['--no-node-snapshot', BIN(name), ...args], {
    env: programEnv(env),
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check().catch(() => false))) {
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const percentile = (sorted: readonly number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))]!;

const bench: Benchmark = {
  name: 'latency: block mined → transfer received by a GraphQL subscriber',
  async run() {
    const td = teardowns();
    try {
      const anvil = await startAnvil();
      td.teardown(() => anvil.stop());
      const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
      const workload = { transfersPerBlock: 20, approvalsPerBlock: 0, senders: 20, recipients: 100 };
      const first = await makeErc20Workload(client, { ...workload, blocks: 1 });
      const dir = await copyProject(td, await buildErc20Project(td));

      const pg = process.env.DB_HOST !== undefined;
      const env = pg
        ? {
            DB_HOST: process.env.DB_HOST,
            DB_PORT: process.env.DB_PORT,
            DB_USER: process.env.DB_USER,
            DB_PASS: process.env.DB_PASS,
            DB_DATABASE: process.env.DB_DATABASE,
          }
        : {};
      const schema = pg ? uniqueSchemaName('idx_bench_latency') : 'erc20';
      if (pg) {
        td.teardown(async () => {
          const db = await createDb({ env });
          await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
          await db.close();
        });
      } else {
        td.teardown(() => rm(join(dir, '.idx-data'), { recursive: true, force: true }));
      }

      const nodePort = freePortGuess();
      const node = spawnProgram(
        'idx-node',
        [
          '-f',
          dir,
          '--network-endpoint',
          anvil.url,
          '--db-schema',
          schema,
          '--unfinalized-blocks',
          '--subscription',
          '-p',
          String(nodePort),
          '--log-level',
          'warn',
        ],
        env,
      );
      td.teardown(() => stop(node));
      await waitFor('the node to index the first block', async () => {
        const meta = (await (await fetch(`http://127.0.0.1:${nodePort}/meta`)).json()) as { lastProcessedHeight?: number };
        return (meta.lastProcessedHeight ?? 0) >= first.toBlock;
      });

      const queryPort = freePortGuess();
      const query = spawnProgram(
        'idx-query',
        ['-n', schema, ...(pg ? [] : ['-f', dir]), '--subscription', '--port', String(queryPort), '--log-level', 'warn'],
        env,
      );
      td.teardown(() => stop(query));
      await waitFor('idx-query', async () => (await fetch(`http://127.0.0.1:${queryPort}/health`)).ok);

      const received = new Map<number, number>();
      const ws = createClient({ url: `ws://127.0.0.1:${queryPort}/`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
      td.teardown(() => ws.dispose());
      const subscribed = new Promise<void>((resolve, reject) => {
        ws.on('connected', () => setTimeout(resolve, 200));
        ws.subscribe<{ transfers: { _entity: { blockHeight: string } | null } }>(
          { query: 'subscription { transfers { id mutation_type _entity { blockHeight } } }' },
          {
            next: (msg) => {
              const height = Number(msg.data?.transfers._entity?.blockHeight);
              if (Number.isFinite(height) && !received.has(height)) received.set(height, performance.now());
            },
            error: reject,
            complete: () => undefined,
          },
        );
      });
      await subscribed;

      const mined = new Map<number, number>();
      for (let i = 0; i < BLOCKS; i++) {
        const started = performance.now();
        const w = await makeErc20Workload(client, { ...workload, blocks: 1, token: first.token, seed: i + 1 });
        mined.set(w.toBlock, performance.now());
        const left = INTERVAL_MS - (performance.now() - started);
        if (left > 0) await new Promise((r) => setTimeout(r, left));
      }
      await new Promise((r) => setTimeout(r, 3000));

      const latencies = [...mined].flatMap(([h, at]) => (received.has(h) ? [received.get(h)! - at] : [])).sort((a, b) => a - b);
      const missing = mined.size - latencies.length;
      if (latencies.length === 0) throw new Error('no block reached the subscriber');
      console.log(
        `${pg ? 'PostgreSQL' : 'PGlite'}: ${mined.size} blocks × 20 Transfers, one a second; mined → first transfer received: ` +
          `p50 ${percentile(latencies, 0.5).toFixed(0)} ms, p90 ${percentile(latencies, 0.9).toFixed(0)} ms, p99 ${percentile(latencies, 0.99).toFixed(0)} ms, ` +
          `max ${latencies.at(-1)!.toFixed(0)} ms${missing > 0 ? `; ${missing} blocks never arrived` : ''}`,
      );
    } finally {
      await td.run();
    }
  },
};

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  await exited;
}

export default bench;

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '../infra/postgres/create-db.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor } from '../test/support/node-backends.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { copyProject, rebuild } from '../test/support/project-copies.ts';
import { patchStarterMapping } from '../test/support/starter-mapping.ts';
import type { Benchmark } from './run.ts';
import { indexOnce, type IndexingRun } from './index-once.ts';
import { startSlowEndpoint } from './slow-endpoint.ts';
import { teardowns } from './teardowns.ts';
import { blockDataCalls, startCountingProxy } from '../test/support/counting-proxy.ts';
import { cachedErc20Workload } from './cached-workload.ts';
import { growthFigures } from './growth-figures.ts';

/**
 * Indexing the issue's ERC20 workload with the starter project, as a user runs it (the idx-node
 * CLI, historical mode, default flags): BLOCKS blocks × 20 Transfers + 2 Approvals the filter
 * must skip, 20 senders, BLOCKS/2 recipients (1,000 for W1); the chain is built once and cached (cached-workload.ts); per Transfer one Transfer entity and two Account
 * updates. Timed from the first block processed to the last one committed; peak RSS of the node.
 * A second variant of the starter reads `log.transaction.hash` and `log.transaction.logs` in every
 * handler, as many SubQuery starters do: the node then fetches every block's transactions and logs.
 * SubQuery's node-ethereum indexed this workload at 441 events/s on this machine.
 */
const BLOCKS = Number(process.env.BENCH_NODE_BLOCKS ?? 2000);
/** the issue's workloads: W1 (2,000 blocks, 1,000 recipients) and its multiples, one recipient per two blocks (W10: 10,000 accounts) */
export const workloadOptions = (blocks: number) => ({ blocks, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 20, recipients: Math.round(blocks / 2) });
const SUBQUERY_EVENTS_PER_SECOND = 441;
/** the remote endpoint of the issue: 100 ms a request, at most 4 in flight (BENCH_REMOTE_LATENCY_MS changes the first) */
const REMOTE = { latencyMs: Number(process.env.BENCH_REMOTE_LATENCY_MS ?? 100), maxInFlight: 4 };

const bench: Benchmark = {
  name: 'node: index the ERC20 workload',
  async run() {
    const td = teardowns();
    const runs: [string, IndexingRun][] = [];
    try {
      const { anvil, workload: w } = await cachedErc20Workload(td, workloadOptions(BLOCKS));
      const built = await buildErc20Project(td);
      const reading = await copyProject(td, built);
      await patchStarterMapping(reading, (source) => {
        const patched = source
          .replace('transactionHash: log.transactionHash,', 'transactionHash: log.transaction.hash,')
          .replace('contractAddress: log.address,', 'contractAddress: (log.transaction.logs ?? []).includes(log) ? log.address : "not in tx.logs",');
        if (!patched.includes('log.transaction.hash') || !patched.includes('log.transaction.logs'))
          throw new Error(`${join(reading, 'src', 'mappings', 'erc20.ts')} no longer has the line the variant changes`);
        return patched;
      });
      await rebuild(reading);
      const events = w.transfers + w.senders.length; // the workload's transfers plus the mints
      const blocks = w.toBlock - w.startBlock + 1;

      if (process.env.DB_HOST) {
        const dir = await copyProject(td, built);
        const schema = uniqueSchemaName('idx_bench');
        const env = envFor('postgres');
        td.teardown(async () => {
          const db = await createDb({ env });
          await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
          await execute(db.kysely, `drop schema if exists ${quoteIdent(`${schema}_tx`)} cascade`);
          await db.close();
        });
        const pg = await indexOnce('PostgreSQL', dir, anvil.url, env, schema, w.toBlock, events, blocks);
        runs.push(['PostgreSQL', pg]);
        await growthFigures(pg, env, schema, w, events);
        // the same behind a remote endpoint: every request REMOTE.latencyMs late, at most REMOTE.maxInFlight at once
        const remote = await startSlowEndpoint(td, anvil.url, REMOTE);
        const remoteDir = await copyProject(td, built);
        td.teardown(async () => {
          const db = await createDb({ env });
          await execute(db.kysely, `drop schema if exists ${quoteIdent(`${schema}_remote`)} cascade`);
          await db.close();
        });
        const remoteLabel = `PostgreSQL, remote endpoint (${REMOTE.latencyMs} ms a request, ≤ ${REMOTE.maxInFlight} at once)`;
        runs.push(['PostgreSQL, remote', await indexOnce(remoteLabel, remoteDir, remote.url, env, `${schema}_remote`, w.toBlock, events, blocks)]);
        const c = remote.counts();
        console.log(`  the remote run asked ${c.requests} requests, ${c.calls} calls, ${(c.bytes / 2 ** 20).toFixed(1)} MiB`);
        runs.push([
          'PostgreSQL, tx.logs',
          await indexOnce('PostgreSQL, reading log.transaction and tx.logs', reading, anvil.url, env, `${schema}_tx`, w.toBlock, events, blocks),
        ]);
        const db = await createDb({ env });
        const [check] = await execute<{ n: string; bad: string }>(
          db.kysely,
          `select count(*) as n, count(*) filter (where contract_address = 'not in tx.logs') as bad from ${quoteIdent(`${schema}_tx`)}.transfers`,
        );
        await db.close();
        console.log(`  the variant's check: ${check!.bad} of ${check!.n} transfers missed their log in tx.logs`);
      } else {
        console.log('PostgreSQL: skipped (set DB_HOST)');
      }
      const dir = await copyProject(td, built);
      td.teardown(() => rm(join(dir, '.idx-data'), { recursive: true, force: true }));
      runs.push(['PGlite', await indexOnce('PGlite', dir, anvil.url, {}, 'erc20', w.toBlock, events, blocks)]);
      td.teardown(() => rm(join(reading, '.idx-data'), { recursive: true, force: true }));
      runs.push([
        'PGlite, tx.logs',
        await indexOnce('PGlite, reading log.transaction and tx.logs', reading, anvil.url, {}, 'erc20', w.toBlock, events, blocks),
      ]);
      // the RPC cache: a first run keeps what it reads (straight from anvil), a reindex (a new database) reads it back
      // through a proxy that counts what still reaches the chain (the head, and start-up's check of the chain)
      const cacheRoot = await mkdtemp(join(tmpdir(), 'idx-bench-rpc-cache-'));
      td.teardown(() => rm(cacheRoot, { recursive: true, force: true }));
      const counting = await startCountingProxy(td, anvil.url);
      const remote = await startSlowEndpoint(td, anvil.url, REMOTE);
      for (const [label, project, fillFrom] of [
        ['PGlite', built, anvil.url],
        ['PGlite, tx.logs', reading, anvil.url],
        // the first run behind the remote endpoint: what a reindex saves where fetching is the bottleneck
        [`PGlite, remote (${REMOTE.latencyMs} ms)`, built, remote.url],
      ] as const) {
        const fill = await copyProject(td, project);
        const again = await copyProject(td, project);
        const args = ['--rpc-cache', await mkdtemp(join(cacheRoot, 'run-'))];
        const first = await indexOnce(`${label}, filling the RPC cache`, fill, fillFrom, {}, 'erc20', w.toBlock, events, blocks, args);
        counting.reset();
        const cached = await indexOnce(`${label}, reindex from the RPC cache`, again, counting.url, {}, 'erc20', w.toBlock, events, blocks, args);
        const calls = counting.calls();
        const data = blockDataCalls(calls);
        console.log(
          `  reindex from the RPC cache: ${data.length} block data calls (${calls.length} calls in all, the rest the head and the chain check), ` +
            `${(cached.eventsPerSecond / first.eventsPerSecond).toFixed(2)}× the first run's events/s`,
        );
        runs.push([`${label}, cache fill`, first], [`${label}, from cache`, cached]);
      }
      // a figure measured once, start-up left out as here; `npm run bench -- versus` runs SubQuery beside idx, spawn → committed
      console.log(
        `  next to SubQuery's @subql/node-ethereum, ${SUBQUERY_EVENTS_PER_SECOND} events/s on this workload once (npm run bench -- versus: side by side):`,
      );
      for (const [label, r] of runs)
        console.log(
          `  ${label.padEnd(20)} ${r.eventsPerSecond.toFixed(0).padStart(6)} events/s = ${(r.eventsPerSecond / SUBQUERY_EVENTS_PER_SECOND).toFixed(1).padStart(4)}× SubQuery, peak RSS ${r.peakRssMiB.toFixed(0)} MiB, start-up ${r.startupSeconds.toFixed(1)} s`,
        );
    } finally {
      await td.run();
    }
  },
};

export default bench;

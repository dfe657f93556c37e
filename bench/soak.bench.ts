import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from '../infra/postgres/test-backends.ts';
import { runNode } from '../apps/node/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { makeErc20Workload } from '../infra/chain/make-erc20-workload.ts';
import { startAnvil } from '../infra/chain/start-anvil.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { envFor, nodeOptions, openDb, type BackendKind } from '../test/support/erc20-chain.ts';
import { buildErc20Project, copyProject, erc20Tables, slowDownTransfers } from '../test/support/erc20-project.ts';
import { ALL_FAULTS, startFaultProxy } from '../test/support/fault-proxy.ts';
import { runWithKills } from '../test/support/kill-cycles.ts';
import type { Benchmark } from './run.ts';

/**
 * The fault-injection test run long (`npm run bench -- soak`): per database, idx-node indexes an
 * ERC20 workload through a proxy faulting a share of the RPC requests, SIGKILLed at seeded random
 * moments SOAK_KILLS times (with --verify-receipts, so the log lies are caught), and its final
 * tables are compared with an uninterrupted run. Prints
 * kills, runs, faults by kind and whether the tables are exact.
 */
const KILLS = Number(process.env.SOAK_KILLS ?? 60);
const BLOCKS = Number(process.env.SOAK_BLOCKS ?? 600);
const RATE = Number(process.env.SOAK_FAULT_RATE ?? 0.5);
const SEED = Number(process.env.SOAK_SEED ?? 42);

const bench: Benchmark = {
  name: 'soak: RPC faults and SIGKILLs, tables compared with an uninterrupted run',
  async run() {
    const fns: (() => unknown)[] = [];
    const td = { teardown: (fn: () => unknown) => void fns.push(fn) };
    try {
      const anvil = await startAnvil();
      td.teardown(() => anvil.stop());
      const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
      const w = await makeErc20Workload(client, { blocks: BLOCKS, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 100 });
      await client.request('anvil_mine', ['0x40']);
      const built = await buildErc20Project(td);
      const kinds: BackendKind[] = process.env.DB_HOST ? ['pglite', 'postgres'] : ['pglite'];
      let allKills = 0;
      let allFaults = 0;
      for (const kind of kinds) {
        const env = envFor(kind);
        const reference = await copyProject(td, built);
        const refSchema = uniqueSchemaName('idx_soak');
        await runNode({
          options: nodeOptions(reference, anvil.url, ['--db-schema', refSchema]),
          logger: createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} }),
          version: 'bench',
          env,
          signal: new AbortController().signal,
          settings: { stopAtHeight: w.toBlock },
        });
        const dir = await copyProject(td, built);
        await slowDownTransfers(dir, 4);
        const proxy = await startFaultProxy(td, anvil.url, { seed: SEED, rate: RATE, kinds: ALL_FAULTS });
        const schema = uniqueSchemaName('idx_soak');
        const started = performance.now();
        const run = await runWithKills({
          dir,
          env,
          args: ['--network-endpoint', proxy.url, '--db-schema', schema, '--batch-size', '5', '--store-flush-interval', '1', '--verify-receipts'],
          target: w.toBlock,
          seed: SEED,
          kills: KILLS,
          killWindowMs: [300, 2500],
          maxErrorExits: KILLS,
        });
        const refDb = await openDb(kind, reference);
        const db = kind === 'postgres' ? refDb : await openDb(kind, dir);
        const exact = JSON.stringify(await erc20Tables(db, schema)) === JSON.stringify(await erc20Tables(refDb, refSchema));
        for (const s of [refSchema, schema]) await execute(refDb.kysely, `drop schema if exists ${quoteIdent(s)} cascade`).catch(() => undefined);
        await refDb.close();
        if (db !== refDb) await db.close();
        allKills += run.kills;
        allFaults += proxy.total();
        console.log(
          `${kind}: ${run.kills} SIGKILLs over ${run.runs} runs in ${((performance.now() - started) / 1000).toFixed(0)} s; ${proxy.total()} faults in ${proxy.requests()} requests ` +
            `${JSON.stringify(proxy.counts)}; runs that gave up: ${run.errorExits.length}; tables ${exact ? 'exact' : 'DIFFERENT from the uninterrupted run'}`,
        );
        for (const e of run.errorExits.slice(0, 3)) console.log(`  gave up (exit ${e.code}): ${e.output.split('\n').filter((l) => /ERROR|FATAL/.test(l)).slice(-1)[0] ?? e.output.slice(-300)}`);
      }
      console.log(`in all: ${allKills} kill cycles, ${allFaults} injected faults`);
    } finally {
      for (const fn of fns.reverse()) await fn();
    }
  },
};

export default bench;

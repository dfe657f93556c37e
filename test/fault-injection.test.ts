import t from 'tap';
import { runNode } from '../apps/node/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from '../infra/postgres/test-backends.ts';
import { BACKENDS, envFor, nodeOptions, openDb, setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject, erc20Tables, slowDownTransfers } from './support/erc20-project.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { ALL_FAULTS, startFaultProxy, TRANSPORT_FAULTS, type FaultKind } from './support/fault-proxy.ts';
import { runWithKills } from './support/kill-cycles.ts';

/**
 * A seeded simulation of a bad day: idx-node indexes anvil through a proxy that refuses, cuts,
 * stalls and garbles a share of the RPC requests, and is SIGKILLed at random moments (start-up,
 * indexing, flushes) and started again; the final tables must equal an uninterrupted run's, row
 * for row. The same seeds give the same faults and kill times. `npm run bench -- soak` runs it long.
 */
exitWhenDone();

// transport faults alone, then every fault with the endpoint's log lies, caught by --verify-receipts
const RUNS: { seed: number; kinds: readonly FaultKind[]; args: string[] }[] = [
  { seed: 7, kinds: TRANSPORT_FAULTS, args: [] },
  { seed: 1009, kinds: ALL_FAULTS, args: ['--verify-receipts'] },
];
const { anvil, workload, built } = await setupErc20Chain(t);

for (const kind of BACKENDS) {
  for (const { seed, kinds, args } of RUNS) {
    t.test(`${kind}, seed ${seed}${args.length ? `, ${args.join(' ')}` : ''}: ${kinds.length} kinds of RPC fault and SIGKILLs at random moments, and the tables equal an uninterrupted run`, async (t) => {
      const env = envFor(kind);
      const reference = await copyProject(t, built);
      const refSchema = uniqueSchemaName('idx_e2e');
      await runNode({
        options: nodeOptions(reference, anvil.url, ['--db-schema', refSchema]),
        logger: createLogger({ level: 'warn', format: 'colored', colors: false, write: () => {} }),
        version: 'test',
        env,
        signal: new AbortController().signal,
        settings: { stopAtHeight: workload.toBlock },
      });

      const faulty = await copyProject(t, built);
      await slowDownTransfers(faulty, 4);
      const proxy = await startFaultProxy(t, anvil.url, { seed, rate: 0.15, kinds });
      const schema = uniqueSchemaName('idx_e2e');
      const run = await runWithKills({
        dir: faulty,
        env,
        args: ['--network-endpoint', proxy.url, '--db-schema', schema, '--batch-size', '5', '--store-flush-interval', '1', ...args],
        target: workload.toBlock,
        seed,
        kills: 3,
        killWindowMs: [300, 2500],
      });
      // the first kill always lands mid-run (start-up and 3 s of handlers outlast the window); later ones may find it done
      t.ok(run.kills >= 1, `${run.kills} SIGKILLs dealt over ${run.runs} runs`);
      t.ok(proxy.total() > 0, `${proxy.total()} faults injected in ${proxy.requests()} requests: ${JSON.stringify(proxy.counts)}`);
      t.same(run.errorExits, [], 'no run gave up on the faults');

      const refDb = await openDb(kind, reference);
      const db = kind === 'postgres' ? refDb : await openDb(kind, faulty);
      t.teardown(async () => {
        for (const s of [refSchema, schema]) await execute(refDb.kysely, `drop schema if exists ${quoteIdent(s)} cascade`).catch(() => undefined);
        await refDb.close();
        if (db !== refDb) await db.close();
      });
      t.same(await erc20Tables(db, schema), await erc20Tables(refDb, refSchema), 'every version row equals the uninterrupted run');
    });
  }
}

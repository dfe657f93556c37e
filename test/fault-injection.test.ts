import t from 'tap';
import { PROGRAM_BACKEND } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import type { BackendKind } from './support/test-backends.ts';
import { exitWhenDone } from './support/exit-when-done.ts';
import { ALL_FAULTS, TRANSPORT_FAULTS, type FaultKind } from './support/fault-proxy.ts';
import { referenceTables } from './support/reference-run.ts';
import { soakRound } from './support/soak-round.ts';

/**
 * A seeded simulation of a bad day: idx-node indexes anvil through a proxy that refuses, cuts,
 * stalls and garbles a share of the RPC requests, and is SIGKILLed at random moments (start-up,
 * indexing, flushes) and started again; the final tables must equal an uninterrupted run's, row
 * for row. The same seeds give the same faults and kill times. `npm run bench -- soak` runs it long.
 */
exitWhenDone();

// Transport faults alone on PGlite, then every fault with the endpoint's log lies, caught by
// --verify-receipts, on PostgreSQL when it is there: kills at random moments on both databases.
const RUNS: { kind: BackendKind; seed: number; kinds: readonly FaultKind[]; args: string[] }[] = [
  { kind: 'pglite', seed: 7, kinds: TRANSPORT_FAULTS, args: [] },
  { kind: PROGRAM_BACKEND, seed: 1009, kinds: ALL_FAULTS, args: ['--verify-receipts'] },
];
const { anvil, workload, built } = await setupErc20Chain(t);
const reference = await referenceTables(t, built, anvil.url, workload.toBlock);

for (const { kind, seed, kinds, args } of RUNS) {
  t.test(
    `${kind}, seed ${seed}${args.length ? `, ${args.join(' ')}` : ''}: ${kinds.length} kinds of RPC fault and SIGKILLs at random moments, and the tables equal an uninterrupted run`,
    async (t) => {
      const round = await soakRound(t, { kind, chainUrl: anvil.url, built, toBlock: workload.toBlock, seed, rate: 0.15, kinds, kills: 3, args, reference });
      // the first kill always lands mid-run (start-up and 3 s of handlers outlast the window); later ones may find it done
      t.ok(round.run.kills >= 1, `${round.run.kills} SIGKILLs dealt over ${round.run.runs} runs`);
      t.ok(round.totalFaults > 0, `${round.totalFaults} faults injected in ${round.requests} requests: ${JSON.stringify(round.faults)}`);
      t.same(round.run.errorExits, [], 'no run gave up on the faults');
      t.same(round.tables.faulted, round.tables.reference, 'every version row equals the uninterrupted run');
    },
  );
}

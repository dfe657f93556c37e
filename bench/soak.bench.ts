import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { startAnvil } from '../devchain/start-anvil.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { BACKENDS } from '../test/support/node-backends.ts';
import { buildErc20Project } from '../test/support/erc20-starter.ts';
import { ALL_FAULTS } from '../test/support/fault-proxy.ts';
import { soakRound } from '../test/support/soak-round.ts';
import type { Benchmark } from './run.ts';
import { teardowns } from './teardowns.ts';

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
    const td = teardowns();
    try {
      const anvil = await startAnvil();
      td.teardown(() => anvil.stop());
      const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
      const w = await makeErc20Workload(client, { blocks: BLOCKS, transfersPerBlock: 20, approvalsPerBlock: 2, senders: 10, recipients: 100 });
      await client.request('anvil_mine', ['0x40']);
      const built = await buildErc20Project(td);
      let allKills = 0;
      let allFaults = 0;
      for (const kind of BACKENDS) {
        const round = await soakRound(td, {
          kind,
          chainUrl: anvil.url,
          built,
          toBlock: w.toBlock,
          seed: SEED,
          rate: RATE,
          kinds: ALL_FAULTS,
          kills: KILLS,
          args: ['--verify-receipts'],
          maxErrorExits: KILLS,
        });
        const exact = JSON.stringify(round.tables.faulted) === JSON.stringify(round.tables.reference);
        allKills += round.run.kills;
        allFaults += round.totalFaults;
        console.log(
          `${kind}: ${round.run.kills} SIGKILLs over ${round.run.runs} runs in ${round.seconds.toFixed(0)} s; ${round.totalFaults} faults in ${round.requests} requests ` +
            `${JSON.stringify(round.faults)}; runs that gave up: ${round.run.errorExits.length}; tables ${exact ? 'exact' : 'DIFFERENT from the uninterrupted run'}`,
        );
        for (const e of round.run.errorExits.slice(0, 3))
          console.log(
            `  gave up (exit ${e.code}): ${
              e.output
                .split('\n')
                .filter((l) => /ERROR|FATAL/.test(l))
                .slice(-1)[0] ?? e.output.slice(-300)
            }`,
          );
      }
      console.log(`in all: ${allKills} kill cycles, ${allFaults} injected faults`);
    } finally {
      await td.run();
    }
  },
};

export default bench;

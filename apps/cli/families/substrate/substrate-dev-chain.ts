import { startSubstrateDemoChain } from '../../../../devchain/demo/demo-chain.ts';
import { startChopsticksProcess } from '../../../../devchain/start-chopsticks-process.ts';
import { CHOPSTICKS_GENESIS_HASH } from '../../../../devchain/start-substrate-chain.ts';
import { findPackage } from '../../../../infra/package/find-package.ts';
import type { DevChain } from '../cli-family.ts';

/** A real runtime under chopsticks, with transfers and batch calls, every block final at once. */
export const substrateDevChain: DevChain = {
  chainId: CHOPSTICKS_GENESIS_HASH,
  what: 'a block with a transfer and a utility.batchAll of two',
  notes: () => [],
  start: (say, place) => {
    const { root } = findPackage();
    return startSubstrateDemoChain(say, {
      blocks: 3,
      transport: 'ws',
      start: () =>
        startChopsticksProcess({
          // the project's own chopsticks (its dev dependency), else idx's (in a checkout of idx)
          from: [...new Set([...(place.project === undefined ? [] : [place.project]), process.cwd(), root])],
          host: place.host,
          port: place.port,
          output: (text) => process.stderr.write(text),
        }),
    });
  },
};

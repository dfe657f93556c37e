import { startEvmDemoChain } from '../../../../devchain/demo/demo-chain.ts';
import type { DevChain } from '../cli-family.ts';

/** The address of the first contract anvil's first dev account deploys: the dev chain's ERC20, and the starter's options.address. */
const DEV_TOKEN = '0x5fbdb2315678afecb367f032d93f642f64180aa3';

/** anvil with the starter's ERC20 and its transfers, every block final at once. */
export const ethereumDevChain: DevChain = {
  chainId: '31337',
  what: 'a block with 5 transfers of the ERC20',
  notes(project) {
    const addresses = project.manifest.dataSources.flatMap((ds) => (ds.options?.address ? [ds.options.address.toLowerCase()] : []));
    return addresses.length > 0 && !addresses.includes(DEV_TOKEN)
      ? [`the project's data sources index ${addresses.join(', ')}; this chain's ERC20 is at ${DEV_TOKEN}`]
      : [];
  },
  start: (say, place) => startEvmDemoChain(say, { host: place.host, port: place.port, blocks: 10, finalAtHead: true }),
};

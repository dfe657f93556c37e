import type { CliFamily } from '../cli-family.ts';

/** The EVM family in `idx`: the ERC20 starter, anvil, and the ABI and runtime types of src/types. */
export const ethereumFamily: CliFamily = {
  title: 'Ethereum',
  starter: { folder: 'erc20', name: 'erc20-starter', about: 'an ERC20 indexer', setup: [] },
  devChain: {
    port: 8545,
    tool: 'anvil',
    about: "EVM: anvil, the ERC20 at the starter's address and its transfers",
    load: async () => (await import('./ethereum-dev-chain.ts')).ethereumDevChain,
  },
  codegen: async () => (await import('./ethereum-codegen.ts')).ethereumCodegen,
};

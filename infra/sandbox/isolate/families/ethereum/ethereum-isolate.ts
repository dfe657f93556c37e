import type { IsolateFamilyDefinition } from '../../isolate-family.ts';
import type { WireRecord } from '../../wire.ts';
import { buildChainObjects } from './chain-objects.ts';
import { createEthProvider } from './eth-provider.ts';
import type { BlockExtrasWire, EvmBlockPayload } from './ethereum-wire.ts';

/**
 * EVM mappings inside: `api` an ethers-like provider pinned to the block, handler arguments
 * SubQuery's EthereumBlock, EthereumLog and EthereumTransaction (chain-objects.ts).
 */
export const ethereumIsolate: IsolateFamilyDefinition = {
  callNames: { ethCall: 'api.call' },
  install({ call, callBlocking, chainId, loadHeight }) {
    const fetchReceipt = async (hash: string) => (await call('receipt', [hash])) as WireRecord;
    const loadExtras =
      callBlocking && ((want: { transactions: boolean; logs: boolean }) => callBlocking('blockExtras', [want.transactions, want.logs]) as BlockExtrasWire);
    return {
      api: createEthProvider(call, chainId, loadHeight),
      apiAt: (height) => createEthProvider(call, chainId, () => height),
      unsafeApi: () => createEthProvider(call, chainId, undefined),
      enterBlock: (payload) => buildChainObjects(payload as EvmBlockPayload, fetchReceipt, loadExtras),
    };
  },
};

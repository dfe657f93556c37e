import type { RangedMethods } from '../../rpc/endpoint-ranges.ts';

/** The EVM methods idx-shard serves, and the blocks each reads (the RPC client's routeByRange). */
export const ETHEREUM_RANGED_METHODS: RangedMethods = {
  // other calls (eth_call and the other state reads) need a full node
  served: [
    'eth_chainId',
    'net_version',
    'eth_blockNumber',
    'eth_syncing',
    'eth_getBlockByNumber',
    'eth_getBlockByHash',
    'eth_getBlockTransactionCountByNumber',
    'eth_getBlockTransactionCountByHash',
    'eth_getBlockReceipts',
    'eth_getTransactionByHash',
    'eth_getTransactionByBlockNumberAndIndex',
    'eth_getTransactionByBlockHashAndIndex',
    'eth_getTransactionReceipt',
    'eth_getLogs',
  ],
  head: ['eth_blockNumber', 'eth_syncing'],
  blockParam: {
    eth_getBlockByNumber: 0,
    eth_getBlockReceipts: 0,
    eth_getBlockTransactionCountByNumber: 0,
    eth_getTransactionByBlockNumberAndIndex: 0,
  },
  spans: ['eth_getLogs'],
};

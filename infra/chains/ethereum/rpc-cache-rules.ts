import type { CacheRules } from '../../rpc/cache/cacheable-call.ts';

/**
 * The EVM answers the RPC cache may keep (cacheable-call.ts): by block hash, by a final height, or
 * (transactions and receipts found by their hash) once their block is final. Heads, tags, chain
 * identity and anything not listed always go to the endpoint.
 */
export const ETHEREUM_CACHE_RULES: CacheRules = {
  eth_getBlockByNumber: { kind: 'block', param: 0 },
  eth_getBlockByHash: { kind: 'block', param: 0 },
  eth_getBlockReceipts: { kind: 'block', param: 0 },
  eth_getBlockTransactionCountByNumber: { kind: 'block', param: 0 },
  eth_getBlockTransactionCountByHash: { kind: 'block', param: 0 },
  eth_getTransactionByBlockNumberAndIndex: { kind: 'block', param: 0 },
  eth_getTransactionByBlockHashAndIndex: { kind: 'block', param: 0 },
  eth_getTransactionByHash: { kind: 'resultBlock' },
  eth_getTransactionReceipt: { kind: 'resultBlock' },
  eth_getLogs: { kind: 'logs' },
  eth_call: { kind: 'block', param: 1 },
  eth_getBalance: { kind: 'block', param: 1 },
  eth_getCode: { kind: 'block', param: 1 },
  eth_getTransactionCount: { kind: 'block', param: 1 },
  eth_getStorageAt: { kind: 'block', param: 2 },
};

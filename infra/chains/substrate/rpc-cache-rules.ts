import type { CacheRules } from '../../rpc/cache/cacheable-call.ts';

/**
 * The Substrate answers the RPC cache may keep (cacheable-call.ts): a final height's block hash,
 * and what is read at a block hash (blocks, headers, events and other storage, metadata and runtime
 * versions, which the cache thus keeps per spec version's blocks). Without a hash these read the
 * head, and are never kept.
 */
export const SUBSTRATE_CACHE_RULES: CacheRules = {
  chain_getBlockHash: { kind: 'block', param: 0 },
  chain_getBlock: { kind: 'block', param: 0 },
  chain_getHeader: { kind: 'block', param: 0 },
  state_getStorage: { kind: 'block', param: 1 },
  state_getStorageAt: { kind: 'block', param: 1 },
  state_queryStorageAt: { kind: 'block', param: 1 },
  state_getMetadata: { kind: 'block', param: 0 },
  state_getRuntimeVersion: { kind: 'block', param: 0 },
  state_call: { kind: 'block', param: 2 },
  state_getKeysPaged: { kind: 'block', param: 3 },
  state_getReadProof: { kind: 'block', param: 1 },
};

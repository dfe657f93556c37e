/**
 * What the sandbox needs of `@polkadot/types` to hand Substrate mappings real codec values: the
 * registry and metadata to decode blocks and events (made as @polkadot/api makes them, with the
 * project's chain types), the decorated metadata behind `api.query` and `api.consts`, and the
 * JSON-RPC definitions behind `api.rpc`. Bundled on its own (bundle-prelude.ts) and loaded only for
 * Substrate projects.
 */
export { expandMetadata, rpcDefinitions } from '@polkadot/types';
export { unwrapStorageType } from '@polkadot/types/util';
export { hexToU8a } from '@polkadot/util';
// the registry is made by the node's own code, so the node and the sandbox make it alike
export { createRuntimeRegistry, runtimeRpc, withHashers } from '../../../../chains/substrate/create-runtime-registry.ts';

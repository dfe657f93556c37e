/**
 * What the sandbox needs of `@polkadot/types` to hand Substrate mappings real codec values: the
 * registry and metadata to decode blocks and events, the decorated metadata behind `api.query` and
 * `api.consts`, and the JSON-RPC definitions behind `api.rpc`. Bundled on its own (bundle-prelude.ts)
 * and loaded only for Substrate projects.
 */
export { Metadata, TypeRegistry, expandMetadata, rpcDefinitions } from '@polkadot/types';
export { unwrapStorageType } from '@polkadot/types/util';
export { hexToU8a } from '@polkadot/util';

/**
 * What the sandbox needs of `@polkadot/types` to hand Substrate mappings real codec values: the
 * registry and metadata to decode blocks and events, and the decorated metadata behind `api.query`
 * and `api.consts`. Bundled on its own (bundle-prelude.ts) and loaded only for Substrate projects.
 */
export { Metadata, TypeRegistry, expandMetadata } from '@polkadot/types';
export { unwrapStorageType } from '@polkadot/types/util';
export { hexToU8a } from '@polkadot/util';

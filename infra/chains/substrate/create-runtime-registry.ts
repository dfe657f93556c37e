import { Metadata, TypeRegistry } from '@polkadot/types';
import type { ChainProperties } from '@polkadot/types/interfaces';
import type { RegisteredTypes } from '@polkadot/types/types';
import { getSpecAlias, getSpecExtensions, getSpecHasher, getSpecRpc, getSpecTypes } from '@polkadot/types-known';
import { blake2AsU8a, keccak256AsU8a, keccak512AsU8a, keccakAsU8a, sha256AsU8a, sha512AsU8a, shaAsU8a, xxhashAsU8a } from '@polkadot/util-crypto';

/** What a runtime's registry is made of. */
export interface RuntimeInputs {
  /** the metadata (hex) of the runtime */
  metadata: string;
  /** `system_properties` */
  properties: Record<string, unknown>;
  /** `system_chain`: the chain name typesChain and typesBundle.chain are keyed by */
  chain: string;
  /** the runtime version's spec name and version */
  specName: string;
  specVersion: number;
  /** the project's chain types (prepared by `withHashers`) */
  chainTypes?: RegisteredTypes;
}

/**
 * A runtime's registry made as @polkadot/api makes it (base/Init.js `_initRegistry`), on the node and
 * in the sandbox alike: the chain's properties, the project's chain types as known types, then the
 * types that apply to this chain, spec name and version (@polkadot/types-known's own for known chains,
 * the bundle's versioned ones, typesSpec, typesChain, types: later ones win), the hasher, the bundle's
 * aliases, and the metadata with the bundle's signed extensions.
 */
export function createRuntimeRegistry(inputs: RuntimeInputs): { registry: TypeRegistry; metadata: Metadata } {
  const registry = new TypeRegistry();
  // decoded before the types go in, as @polkadot/api does for a block's registry (its metadata comes first)
  const metadata = new Metadata(registry, inputs.metadata as `0x${string}`);
  const { chain, specName, specVersion } = inputs;
  // properties first: the metadata's own SS58 prefix then wins, as with @polkadot/api
  registry.setChainProperties(registry.createType('ChainProperties', inputs.properties) as unknown as ChainProperties);
  // a copy: @polkadot/api writes the bundle's aliases into its options object, which would leak them into the next spec name's registry
  registry.setKnownTypes({ ...inputs.chainTypes });
  registry.register(getSpecTypes(registry, chain, specName, specVersion));
  registry.setHasher(getSpecHasher(registry, chain, specName));
  if (registry.knownTypes.typesBundle) registry.knownTypes.typesAlias = getSpecAlias(registry, chain, specName);
  // noInitWarn, as SubQuery creates its ApiPromise: an unknown signed extension is no-effect, not a console line
  registry.setMetadata(metadata, undefined, getSpecExtensions(registry, chain, specName), true);
  return { registry, metadata };
}

/** The JSON-RPC methods the chain types' bundle adds for this chain and spec name (`api.rpc.<section>.<method>`). */
export function runtimeRpc(registry: TypeRegistry, chain: string, specName: string): Record<string, Record<string, unknown>> {
  return getSpecRpc(registry, chain, specName) as Record<string, Record<string, unknown>>;
}

const HASHERS: Record<string, (data: Uint8Array) => Uint8Array> = {
  blake2AsU8a: (data) => blake2AsU8a(data),
  keccakAsU8a: (data) => keccakAsU8a(data),
  keccak256AsU8a: (data) => keccak256AsU8a(data),
  keccak512AsU8a: (data) => keccak512AsU8a(data),
  sha256AsU8a: (data) => sha256AsU8a(data),
  sha512AsU8a: (data) => sha512AsU8a(data),
  shaAsU8a: (data) => shaAsU8a(data),
  xxhashAsU8a: (data) => xxhashAsU8a(data),
};

/** The hashers a bundle entry may name (SubQuery looks the name up in @polkadot/util-crypto). */
export const HASHER_NAMES = Object.keys(HASHERS);

/**
 * The chain types with each bundle entry's `hasher` given by name (SubQuery's form: `hasher: "keccakAsU8a"`)
 * made the @polkadot/util-crypto function it names; a function stays as it is. The value is not changed.
 */
export function withHashers(chainTypes: RegisteredTypes | undefined): RegisteredTypes | undefined {
  const bundle = chainTypes?.typesBundle;
  if (bundle === undefined) return chainTypes;
  const entries = (byName: Record<string, { hasher?: unknown }> | undefined) =>
    byName === undefined
      ? undefined
      : Object.fromEntries(
          Object.entries(byName).map(([name, entry]) => {
            if (typeof entry?.hasher !== 'string') return [name, entry];
            const hasher = HASHERS[entry.hasher];
            // checked where the chain types are loaded (chainTypesProblems)
            if (hasher === undefined) throw new Error(`the hasher "${entry.hasher}" of ${name} is not one of ${HASHER_NAMES.join(', ')}`);
            return [name, { ...entry, hasher }];
          }),
        );
  const spec = entries(bundle.spec as Record<string, { hasher?: unknown }> | undefined);
  const chain = entries(bundle.chain as Record<string, { hasher?: unknown }> | undefined);
  return { ...chainTypes, typesBundle: { ...bundle, ...(spec && { spec }), ...(chain && { chain }) } as RegisteredTypes['typesBundle'] };
}

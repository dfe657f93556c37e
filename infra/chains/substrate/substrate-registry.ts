import { Metadata, TypeRegistry } from '@polkadot/types';
import type { ChainProperties } from '@polkadot/types/interfaces';
import type { RegistryTypes } from '@polkadot/types/types';

/** What the chain says of itself and what the project adds: the inputs of every spec version's registry. */
export interface RegistryInputs {
  /** `system_properties` (ss58Format, tokenDecimals, tokenSymbol) */
  properties: Record<string, unknown>;
  /** the manifest's `network.chaintypes` file, parsed: `types`, `typesAlias` */
  chainTypes?: { types?: RegistryTypes; typesAlias?: Record<string, Record<string, string>> };
}

/** A type registry for one runtime's metadata: decodes blocks, extrinsics and events with it. */
export function createSubstrateRegistry(metadataHex: string, inputs: RegistryInputs): { registry: TypeRegistry; metadata: Metadata } {
  const registry = new TypeRegistry();
  if (inputs.chainTypes?.types !== undefined) registry.register(inputs.chainTypes.types);
  if (inputs.chainTypes?.typesAlias !== undefined) registry.setKnownTypes({ typesAlias: inputs.chainTypes.typesAlias });
  // properties first: the metadata's own SS58 prefix then wins, as with @polkadot/api
  registry.setChainProperties(registry.createType('ChainProperties', inputs.properties) as unknown as ChainProperties);
  const metadata = new Metadata(registry, metadataHex as `0x${string}`);
  registry.setMetadata(metadata);
  return { registry, metadata };
}

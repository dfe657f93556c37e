import type { MappingHost } from '../../mapping/mapping-host.ts';

/** What the sandbox makes a runtime's registry of: the runtime's metadata (hex), the chain's properties (`system_properties`) and name (`system_chain`), the runtime's spec name. */
export interface SubstrateRuntimeInputs {
  metadata: string;
  properties: Record<string, unknown>;
  chain: string;
  specName: string;
}

/** The mapping host of a Substrate chain. */
export interface SubstrateMappingHost extends MappingHost {
  /** a runtime by spec version, which the sandbox decodes blocks and storage with (and the project's chain types, given at its creation) */
  substrateRuntime?(specVersion: number): Promise<SubstrateRuntimeInputs>;
}

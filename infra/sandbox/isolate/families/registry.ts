import type { ChainFamilyName } from '../../../../domain/chains/families.ts';
import type { IsolateFamilyDefinition } from '../isolate-family.ts';
import { ethereumIsolate } from './ethereum/ethereum-isolate.ts';
import { substrateIsolate } from './substrate/substrate-isolate.ts';

/** The families' sides inside the sandbox, by name (the host's are infra/sandbox/families/registry.ts). */
export const isolateFamilies: Record<ChainFamilyName, IsolateFamilyDefinition> = {
  ethereum: ethereumIsolate,
  substrate: substrateIsolate,
};

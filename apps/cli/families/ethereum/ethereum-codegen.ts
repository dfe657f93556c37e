import { GENERATED_HEADER, readMappingTypes } from '../../codegen-runtime-types.ts';
import type { FamilyCodegen } from '../cli-family.ts';
import { renderAbis } from './render-abis.ts';

/**
 * The EVM family's part of `src/types`, written for every project (a Substrate project's Frontier
 * EVM data sources have ABIs too): `ethereum.ts`, the types a SubQuery mapping gets from
 * `@subql/types-ethereum` and `@subql/types-core`, so that a project typechecks with nothing
 * installed (the project's tsconfig.json may map `@subql/types-ethereum` to it, as the starter
 * does; its source is idx's `types/ethereum.ts`, type-checked with idx's own code, and it is also
 * the contract with the sandbox: what it must hand to handlers and provide as globals); and per
 * JSON ABI its interface and contract (render-abis.ts).
 */
export const ethereumCodegen: FamilyCodegen = {
  entries: ['abi-interfaces', 'contracts', 'ethereum.ts'],
  globals: ['BigNumber', 'BigNumberish', 'CallOverrides', 'Indexed', 'EthereumLog', 'EthereumTransaction', 'connectContract'],
  storeTypes: '../ethereum',
  async render(input) {
    return new Map([['ethereum.ts', `${GENERATED_HEADER}\n${readMappingTypes('ethereum.ts')}`], ...(await renderAbis(input))]);
  },
  summary: (files) => `${files.filter((f) => f.startsWith('abi-interfaces/')).length} ABI interface(s) and contract(s)`,
};

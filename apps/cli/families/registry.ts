import type { ChainFamilyName } from '../../../domain/chains/chain-family.ts';
import type { CliFamily } from './cli-family.ts';
import { ethereumFamily } from './ethereum/ethereum-family.ts';
import { substrateFamily } from './substrate/substrate-family.ts';

/**
 * The chain families of the `idx` program, by the name `familyOfKinds` gives a project, in the
 * order help text lists them. Each entry is plain data and loaders: a family's code (its dev
 * chain, its codegen) is imported only when a command needs it.
 */
export const cliFamilies: Record<ChainFamilyName, CliFamily> = {
  ethereum: ethereumFamily,
  substrate: substrateFamily,
};

/** The family of `idx init` and `idx dev-chain` when neither a flag nor a project names one: the ERC20 starter's. */
export const DEFAULT_CLI_FAMILY: ChainFamilyName = 'ethereum';

/**
 * The family whose runtime types file the generated models import the store types from
 * (`rt.Store`, `rt.Entity`…): idx has written `ethereum.ts` into every project, whatever its family,
 * since before there were families, and the generated code stays as it was.
 */
export const STORE_TYPES_FAMILY: ChainFamilyName = 'ethereum';

/** The family of a name given on the command line, or undefined for a name of none. */
export function cliFamily(name: string): CliFamily | undefined {
  return Object.hasOwn(cliFamilies, name) ? cliFamilies[name as ChainFamilyName] : undefined;
}

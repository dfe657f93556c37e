import type { ChainFamilyName } from '../../../domain/chains/families.ts';
import type { ProcessorShape } from '../../../domain/chains/substrate/custom-data-source.ts';
import type { SandboxFamily } from '../sandbox-family.ts';
import { ethereumSandbox, type EthereumSandboxMethods } from './ethereum/ethereum-sandbox.ts';
import { substrateSandbox, type SubstrateSandboxMethods } from './substrate/substrate-sandbox.ts';

/** The families' host sides of the sandbox, by name (their isolate sides: isolate/families/registry.ts). */
export const sandboxFamilies: Record<ChainFamilyName, SandboxFamily> = {
  ethereum: ethereumSandbox,
  substrate: substrateSandbox,
};

/** The family of a sandbox not told its family: the EVM, as a project of no family's kinds is read as one. */
export const defaultSandboxFamily: ChainFamilyName = ethereumSandbox.name;

/**
 * Every family's sandbox methods: a sandbox has its own family's (a node's chain calls its own
 * family's, apps/node/families/<family>/).
 */
export type FamilySandboxMethods = EthereumSandboxMethods & SubstrateSandboxMethods;

/** What a custom data source processor tells of itself when loaded (those of Substrate's kinds, today the only ones). */
export type LoadedProcessor = ProcessorShape;

/** The library bundles of every family, by name: bundle-prelude.ts builds one by its name. */
export const sandboxLibraries = Object.values(sandboxFamilies).flatMap((f) => (f.library === undefined ? [] : [f.library]));

import type { FamilyManifestRules } from '../project/family-manifest-rules.ts';
import { ethereumManifestRules } from './ethereum/manifest-rules.ts';
import { substrateManifestRules } from './substrate/manifest-rules.ts';

/**
 * The chain families idx indexes, by the data-source kinds that name them. A project's family is
 * read from its kinds here and nowhere else; adding a family adds a row (and its folders, see
 * docs/ARCHITECTURE.md).
 */
export const FAMILIES = [
  // first: the family of a project whose kinds name none (the EVM reader then names the field)
  { name: 'ethereum', kindPrefix: 'ethereum/', runtimeKind: 'ethereum/Runtime', manifest: ethereumManifestRules },
  // custom data sources (`substrate/FrontierEvm`, …) belong to their runtime's family by the prefix
  { name: 'substrate', kindPrefix: 'substrate/', runtimeKind: 'substrate/Runtime', manifest: substrateManifestRules },
] as const;

export type ChainFamilyName = (typeof FAMILIES)[number]['name'];
/** A family's base data-source kind (`ethereum/Runtime`, `substrate/Runtime`); other kinds of a family are custom. */
export type RuntimeKind = (typeof FAMILIES)[number]['runtimeKind'];

/** A handler of a runtime data source, of any family (its `manifest` rules' handlers). */
export type RuntimeHandler = HandlerOf<(typeof FAMILIES)[number]['manifest']>;
type HandlerOf<R> = R extends FamilyManifestRules<infer H> ? H : never;

/** The family a kind that names none is left to. */
export const DEFAULT_FAMILY: ChainFamilyName = FAMILIES[0].name;

/** The family of one data-source kind, by its prefix; a kind of no family's prefix goes to the default family. */
export function familyOfKind(kind: string): ChainFamilyName {
  return FAMILIES.find((f) => kind.startsWith(f.kindPrefix))?.name ?? DEFAULT_FAMILY;
}

/** The runtime kind of a family. */
export function runtimeKindOf(name: ChainFamilyName): RuntimeKind {
  return FAMILIES.find((f) => f.name === name)!.runtimeKind;
}

/** Whether a kind is a family's base kind rather than a custom one. */
export function isRuntimeKind(kind: string): kind is RuntimeKind {
  return FAMILIES.some((f) => f.runtimeKind === kind);
}

/** A family's manifest rules (domain/chains/<family>/manifest-rules.ts). */
export function manifestRulesOf(name: ChainFamilyName): FamilyManifestRules {
  return FAMILIES.find((f) => f.name === name)!.manifest as FamilyManifestRules;
}

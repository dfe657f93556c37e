/**
 * The chain families idx indexes, by the data-source kinds that name them. A project's family is
 * read from its kinds here and nowhere else; adding a family adds a row (and its folders, see
 * docs/ARCHITECTURE.md).
 */
export const FAMILIES = [
  // first: the family of a project whose kinds name none (the EVM reader then names the field)
  { name: 'ethereum', kindPrefix: 'ethereum/', runtimeKind: 'ethereum/Runtime' },
  // custom data sources (`substrate/FrontierEvm`, …) belong to their runtime's family by the prefix
  { name: 'substrate', kindPrefix: 'substrate/', runtimeKind: 'substrate/Runtime' },
] as const;

export type ChainFamilyName = (typeof FAMILIES)[number]['name'];
/** A family's base data-source kind (`ethereum/Runtime`, `substrate/Runtime`); other kinds of a family are custom. */
export type RuntimeKind = (typeof FAMILIES)[number]['runtimeKind'];

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

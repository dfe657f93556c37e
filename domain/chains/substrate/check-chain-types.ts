import type { Problem } from '../../errors.ts';

/** A versioned set of types in a bundle entry: the types apply to spec versions min..max (either end open). */
export interface VersionedTypes {
  minmax: [number | null | undefined, number | null | undefined] | (number | null | undefined)[];
  types: Record<string, unknown>;
}

/** One `typesBundle.spec.<specName>` or `typesBundle.chain.<chainName>` entry, as @polkadot/api reads it. */
export interface BundleEntry {
  types?: VersionedTypes[];
  alias?: Record<string, Record<string, string>>;
  signedExtensions?: Record<string, unknown>;
  rpc?: Record<string, Record<string, unknown>>;
  /** a function (JavaScript chain types), or the name of one of @polkadot/util-crypto's hashers (SubQuery's form) */
  hasher?: unknown;
  [other: string]: unknown;
}

/** The chain types of `network.chaintypes` (@polkadot/api's RegisteredTypes, as SubQuery accepts them). */
export interface ChainTypes {
  types?: Record<string, unknown>;
  typesAlias?: Record<string, Record<string, string>>;
  typesBundle?: { spec?: Record<string, BundleEntry>; chain?: Record<string, BundleEntry> };
  typesChain?: Record<string, Record<string, unknown>>;
  typesSpec?: Record<string, Record<string, unknown>>;
}

/** The fields SubQuery's chain-types model has; it refuses any other (class-validator's forbidNonWhitelisted). */
export const CHAIN_TYPES_FIELDS = ['types', 'typesAlias', 'typesBundle', 'typesChain', 'typesSpec'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const describe = (v: unknown) => (Array.isArray(v) ? 'an array' : v === null ? 'null' : typeof v === 'object' ? 'an object' : `a ${typeof v}`);

/**
 * The problems of a chain-types value, as SubQuery refuses them (its ChainTypes model: an object with
 * at least one of the five fields, each an object, no other field) and where @polkadot/api would fail
 * or silently misread them (a bundle entry's `types` that is not a list of `{ minmax, types }`, a
 * hasher that is neither a function nor the name of one in `hasherNames`). `functions` lists the
 * paths (`typesBundle.spec.x.hasher`) where the value held a function: the value itself is the
 * plain-data copy made outside the sandbox, without them.
 */
export function chainTypesProblems(value: unknown, known: { functions: readonly string[]; hasherNames: readonly string[] }): Problem[] {
  if (value === undefined)
    return [{ path: 'default export', message: "there is none: export the chain types as the module's default (export default { types, typesBundle, … })" }];
  if (!isRecord(value) || !CHAIN_TYPES_FIELDS.some((f) => Boolean(value[f]))) {
    return [
      {
        path: 'chain types',
        message: `expected an object with at least one of ${CHAIN_TYPES_FIELDS.join(', ')}; got ${isRecord(value) ? `one with ${list(Object.keys(value))}` : describe(value)}`,
      },
    ];
  }
  const problems: Problem[] = [];
  for (const key of Object.keys(value)) {
    if (!(CHAIN_TYPES_FIELDS as readonly string[]).includes(key))
      problems.push({ path: key, message: `is not a chain-types field (SubQuery refuses it too); the fields are ${CHAIN_TYPES_FIELDS.join(', ')}` });
  }
  for (const field of CHAIN_TYPES_FIELDS) {
    const v = value[field];
    if (v === undefined || v === null) continue;
    if (!isRecord(v)) {
      problems.push({ path: field, message: `must be an object, not ${describe(v)}${field === 'types' && Array.isArray(v) ? VERSIONED_HINT : ''}` });
      continue;
    }
    if (field === 'typesChain' || field === 'typesSpec' || field === 'typesAlias') {
      for (const [name, entry] of Object.entries(v))
        if (!isRecord(entry))
          problems.push({
            path: `${field}.${name}`,
            message: `must be an object, not ${describe(entry)}${field !== 'typesAlias' && Array.isArray(entry) ? VERSIONED_HINT : ''}`,
          });
    }
    if (field === 'typesBundle') problems.push(...bundleProblems(v, known));
  }
  return problems;
}

const VERSIONED_HINT =
  ' (type definitions by name; types that apply to some spec versions only go in typesBundle.spec.<specName>.types as [{ minmax: [from, to], types }])';

function bundleProblems(
  bundle: Record<string, unknown>,
  { functions, hasherNames }: { functions: readonly string[]; hasherNames: readonly string[] },
): Problem[] {
  const problems: Problem[] = [];
  // other keys of the bundle and of its entries (derives, instances, runtime…) are @polkadot/api's to ignore or use
  for (const kind of ['spec', 'chain'] as const) {
    const entries = bundle[kind];
    if (entries === undefined) continue;
    if (!isRecord(entries)) {
      problems.push({ path: `typesBundle.${kind}`, message: `must be an object by ${kind} name, not ${describe(entries)}` });
      continue;
    }
    for (const [name, entry] of Object.entries(entries)) {
      const at = `typesBundle.${kind}.${name}`;
      if (!isRecord(entry)) {
        problems.push({ path: at, message: `must be an object ({ types, alias, signedExtensions, rpc, hasher, … }), not ${describe(entry)}` });
        continue;
      }
      if (entry.types !== undefined) {
        if (!Array.isArray(entry.types))
          problems.push({ path: `${at}.types`, message: `must be a list of { minmax: [from, to], types }, not ${describe(entry.types)}` });
        else
          entry.types.forEach((versioned: unknown, i) => {
            if (!isRecord(versioned) || !Array.isArray(versioned.minmax))
              problems.push({
                path: `${at}.types[${i}]`,
                message: 'must be { minmax: [from, to], types: { … } } (from and to: spec versions, or null for open)',
              });
          });
      }
      const hasher = entry.hasher;
      if (hasher !== undefined && hasher !== null && !functions.includes(`${at}.hasher`) && !(typeof hasher === 'string' && hasherNames.includes(hasher)))
        problems.push({
          path: `${at}.hasher`,
          message: `must be a function, or the name of a hasher of @polkadot/util-crypto (${hasherNames.join(', ')}); got ${typeof hasher === 'string' ? `"${hasher}"` : describe(hasher)}`,
        });
    }
  }
  return problems;
}

function list(names: readonly string[]): string {
  return names.length === 0 ? 'no fields' : names.join(', ');
}

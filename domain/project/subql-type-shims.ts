import { FAMILIES } from '../chains/families.ts';

/**
 * The run-time values of SubQuery's type packages that manifests (`project.ts`) and mappings use;
 * everything else in them is types only, which swc removes. idx provides these, so a project builds
 * and loads without the packages installed. Each family lists its packages' values
 * (domain/chains/<family>/manifest-rules.ts); `@subql/types-core` is every family's.
 */
export const SUBQL_TYPE_SHIMS: Readonly<Record<string, Record<string, unknown>>> = {
  ...Object.assign({}, ...FAMILIES.map((f) => f.manifest.typePackages.shims)),
  '@subql/types-core': {},
};

/** Packages a mapping imports for their side effects on types only: empty at run time. */
export const TYPE_ONLY_PACKAGES: readonly RegExp[] = FAMILIES.flatMap((f) => f.manifest.typePackages.typeOnly);

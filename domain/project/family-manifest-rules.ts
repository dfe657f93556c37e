import type { Checker, FieldPath } from './manifest-checker.ts';

/**
 * What a chain family brings to the manifest (domain/chains/<family>/manifest-rules.ts, listed by
 * kind in domain/chains/families.ts): its runtime handlers and their filters, how its chains are
 * named in `network`, its custom data-source kinds, and SubQuery's type packages its projects
 * import. validate-manifest.ts checks everything else, the same for every family.
 */

/** A handler of a family's runtime data source, as the manifest names it. */
export interface FamilyHandler {
  kind: string;
  handler: string;
  filter?: object;
}

export interface FamilyManifestRules<H extends FamilyHandler = FamilyHandler> {
  /** how messages name a chain of the family, e.g. "a custom … kind", "for a … chain" */
  chainName: string;
  /** the handler kinds its runtime data sources take (in the order messages list them), each with its filter's keys */
  filterKeys: Readonly<Record<H['kind'], readonly string[]>>;
  /** a handler's filter, an object whose keys are already checked against `filterKeys`; problems go to `c` */
  checkFilter(c: Checker, path: FieldPath, kind: H['kind'], filter: Record<string, unknown>): NonNullable<H['filter']>;
  network: FamilyNetworkRules;
  /** custom data sources (a kind with a processor, SubQuery's `substrate/FrontierEvm`…), when the family runs them */
  customKinds?: { pattern: RegExp; example: string; processorExample: string };
  /** SubQuery's type packages: the run-time values idx provides for each, and packages imported for their types only */
  typePackages: { shims: Readonly<Record<string, Record<string, unknown>>>; typeOnly: readonly RegExp[] };
}

/** `network` of a project of the family. */
export interface FamilyNetworkRules {
  /** `network.chainId` as stored; undefined when it does not name a chain of the family */
  chainIdOf(v: unknown): string | undefined;
  /** the problem when `chainIdOf` refuses it */
  chainIdExpected: string;
  /** what network.chainId should be, after "set network.chainId to" */
  chainIdHint: string;
  /** whether `network.chaintypes` (a file of the chain's custom types) applies */
  chainTypes: boolean;
}

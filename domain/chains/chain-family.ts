import { IdxError } from '../errors.ts';
import type { CallOrder } from './call-order.ts';
import type { DataSource } from '../project/project-model.ts';
import { DEFAULT_FAMILY, familyOfKind, runtimeKindOf, type ChainFamilyName } from './families.ts';

export type { ChainFamilyName } from './families.ts';

/** What every family's fetched range has: its blocks by height (those the plan fetched), and how many events it holds. */
export interface FetchedBlocks {
  blocks: Map<number, { height: number; hash: string; parentHash: string; timestamp: number }>;
  /** events (EVM logs, Substrate events) fetched in all, for the events/s figure */
  logCount: number;
}

/**
 * What the node core needs from a chain family. The core (apps/node/indexing) knows heights,
 * hashes, ranges, data sources and flushes; what a block holds, what to fetch for it and which
 * handlers it calls, in what order and with which values, is the family's.
 *
 * The chain side (heads, finality, block identities, ranges fetched as a plan says) is the family's
 * `ChainSource` and range fetcher; the sandbox side is the family's runtime values.
 */
export interface ChainFamily<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call> {
  readonly name: ChainFamilyName;
  /** `/meta`'s `specName` (the runtime's for Substrate chains) */
  readonly specName: string;
  /**
   * Its blocks are fetched whole, whatever the data sources (Substrate): a block in which a data source is created
   * already holds what the new one matches, so it is not fetched again for it. (The rest of the range still is: a
   * dictionary may have skipped blocks only the new data source matches.)
   */
  readonly wholeBlocks?: true;
  /** a data source of the manifest, or one made from a template, ready for matching */
  compile(ds: DataSource, index: number): Compiled;
  /** what to fetch for `[from, to]` so that every handler of the active data sources finds its data */
  plan(sources: readonly Compiled[], from: number, to: number): Plan;
  /**
   * the handler calls of a fetched block, in the family's order, with what the sandbox receives, and each call's place
   * in that order (call-order.ts); none when the block has none. `extra`: the block fetched again for data sources
   * created in it, whose data joins the range's.
   */
  blockCalls(
    sources: readonly Compiled[],
    fetched: Fetched,
    height: number,
    extra?: Fetched,
  ): { content: Content; calls: Call[]; order: CallOrder[] } | undefined;
}

/** A program that runs one family only (`idx-node-ethereum`), and that family. */
export interface OneFamilyProgram {
  program: string;
  family: ChainFamilyName;
}

/**
 * The family of a project, from its data sources' kinds: one family per project (a multichain
 * folder gives each chain its own project). A program that runs one family refuses the others.
 */
export function familyOfKinds(kinds: readonly string[], manifestPath: string, only?: OneFamilyProgram): ChainFamilyName {
  const names = new Set(kinds.map(familyOfKind));
  if (names.size > 1)
    throw new IdxError(
      'CHAIN_FAMILY_MIXED',
      `${manifestPath}: data sources of several chain families (${[...names].join(', ')}); one project indexes one chain`,
    );
  const name = [...names][0] ?? DEFAULT_FAMILY;
  if (only !== undefined && name !== only.family)
    throw new IdxError(
      'CHAIN_FAMILY_UNSUPPORTED',
      `${manifestPath}: ${only.program} runs ${runtimeKindOf(only.family)} projects; run ${runtimeKindOf(name)} projects with idx-node`,
    );
  return name;
}

import type { ChainSource } from '../../domain/chains/ethereum/chain-source.ts';
import type { HeightRange } from '../../domain/blocks/next-range.ts';
import type { FetchPlan } from '../../domain/chains/ethereum/compile-data-sources.ts';
import { fetchRange, type FetchedRange, type FetchRangeOptions } from './families/ethereum/fetch-range.ts';

/** Fetches ranges for the indexing loop: in this thread, or spread over `--workers` threads. */
export interface RangeFetcher<Plan = FetchPlan, Fetched = FetchedRange> {
  /** `index` counts the ranges handed out, so they go to the workers in turn */
  fetch(plan: Plan, range: HeightRange, index: number): Promise<Fetched>;
  /** ranges worth fetching ahead at once: one per worker, at least one */
  readonly parallelism: number;
  close(): Promise<void>;
}

export function createLocalFetcher(source: ChainSource, options: FetchRangeOptions = {}): RangeFetcher {
  return { fetch: (plan, range) => fetchRange(source, plan, range, options), parallelism: 1, close: async () => undefined };
}

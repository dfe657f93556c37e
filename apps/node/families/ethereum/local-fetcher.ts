import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import type { RangeFetcher } from '../../indexing/range-fetcher.ts';
import { fetchRange, type FetchedRange, type FetchRangeOptions } from './fetch-range.ts';

/** An EVM chain's ranges: logs (and blocks, receipts) for a fetch plan. */
export type EthereumRangeFetcher = RangeFetcher<FetchPlan, FetchedRange>;

/** Fetches in this thread (without `--workers`). */
export function createLocalFetcher(source: ChainSource, options: FetchRangeOptions = {}): EthereumRangeFetcher {
  return { fetch: (plan, range) => fetchRange(source, plan, range, options), parallelism: 1, close: async () => undefined };
}

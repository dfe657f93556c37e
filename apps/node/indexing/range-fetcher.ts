import type { HeightRange } from '../../../domain/blocks/next-range.ts';

/** Fetches ranges for the indexing loop: in this thread, or spread over `--workers` threads. */
export interface RangeFetcher<Plan, Fetched> {
  /** `index` counts the ranges handed out, so they go to the workers in turn */
  fetch(plan: Plan, range: HeightRange, index: number): Promise<Fetched>;
  /** ranges worth fetching ahead at once: one per worker, at least one */
  readonly parallelism: number;
  close(): Promise<void>;
}

/**
 * How many ranges the indexing loop fetches ahead of the one it processes. It starts at one per
 * fetch worker plus one, and goes one deeper each time processing has to wait for a range that was
 * asked for ahead of time (fetching is slower than processing: a remote endpoint's latency), up to
 * two more than it started with. Deeper costs memory (a range's blocks and logs wait in it), so it
 * only grows where it hides latency.
 */
export interface FetchDepth {
  depth: number;
  max: number;
}

export const startFetchDepth = (parallelism: number): FetchDepth => ({ depth: parallelism + 1, max: parallelism + 3 });

/** After processing waited for a range fetched ahead: one deeper, if it may. */
export const deepened = (d: FetchDepth): FetchDepth => ({ ...d, depth: Math.min(d.max, d.depth + 1) });

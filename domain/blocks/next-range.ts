/** An inclusive range of block heights. */
export interface HeightRange {
  from: number;
  to: number;
}

/** Which worker fetches the `index`-th range: ranges go to workers in turn. */
export function workerFor(index: number, workers: number): number {
  return workers <= 1 ? 0 : index % workers;
}

/**
 * The next heights to fetch, given where indexing stands, how far the chain (or the data
 * sources' end blocks) goes, and the batch size. Undefined when there is nothing to fetch.
 */
export function nextRange(nextHeight: number, targetHeight: number, batchSize: number): HeightRange | undefined {
  if (nextHeight > targetHeight) return undefined;
  return { from: nextHeight, to: Math.min(targetHeight, nextHeight + batchSize - 1) };
}

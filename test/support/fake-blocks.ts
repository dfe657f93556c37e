import type { FetchedRange } from '../../apps/node/families/ethereum/fetch-range.ts';
import type { EthereumRangeFetcher } from '../../apps/node/families/ethereum/local-fetcher.ts';

/** Block `height` of a plain fake chain: hash `0x<height>`, 12 s apart, no transactions. */
export const numberedBlock = (height: number) => ({
  height,
  hash: `0x${height}`,
  parentHash: `0x${height - 1}`,
  timestamp: height * 12,
  transactionHashes: [],
});

/**
 * A fetcher whose ranges hold the blocks `block` makes and no log; a height it makes none for
 * (past a fake chain's head) is left out of the range.
 */
export function blocksWithoutLogs(block: (height: number) => object | undefined) {
  return {
    parallelism: 1,
    close: async () => undefined,
    fetch: async (_plan, range) => {
      const blocks: FetchedRange['blocks'] = new Map();
      for (let height = range.from; height <= range.to; height++) {
        const made = block(height);
        if (made !== undefined) blocks.set(height, made as never);
      }
      return { ...range, logCount: 0, logs: new Map(), logsComplete: false, blocks };
    },
  } satisfies EthereumRangeFetcher;
}

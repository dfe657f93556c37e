import { IdxError } from '../../domain/errors.ts';
import type { EthBlock, EthLog } from '../../domain/blocks/chain-data.ts';
import type { ChainSource } from '../../domain/blocks/chain-source.ts';
import type { HeightRange } from '../../domain/blocks/next-range.ts';
import type { FetchPlan } from '../../domain/project/compile-data-sources.ts';

/** What was fetched for a range: the blocks a handler may need, by height, with their logs. */
export interface FetchedRange extends HeightRange {
  blocks: Map<number, EthBlock>;
  logs: Map<number, EthLog[]>;
  /** logs fetched in all, for the events/s figure */
  logCount: number;
}

/**
 * Fetches one range in as few round trips as the plan allows: one `eth_getLogs` over the range,
 * then one batch of blocks for the heights that have logs or a due block handler (all heights
 * when a transaction handler needs every transaction, unless a dictionary named the heights).
 */
export async function fetchRange(source: ChainSource, plan: FetchPlan, range: HeightRange): Promise<FetchedRange> {
  const logs = new Map<number, EthLog[]>();
  let logCount = 0;
  if (plan.logs !== undefined) {
    for (const log of await source.getLogs(plan.logs)) {
      // Providers may return logs of reorganised-away blocks as `removed`; they are not part of the chain.
      if (log.removed) continue;
      const list = logs.get(log.blockNumber);
      if (list === undefined) logs.set(log.blockNumber, [log]);
      else list.push(log);
      logCount++;
    }
  }
  const heights = new Set<number>(plan.blockHeights);
  if (plan.transactionHeights !== undefined) for (const h of plan.transactionHeights) heights.add(h);
  else if (plan.transactions) for (let h = range.from; h <= range.to; h++) heights.add(h);
  for (const h of logs.keys()) heights.add(h);
  const sorted = [...heights].sort((a, b) => a - b);
  const blocks = new Map<number, EthBlock>();
  if (sorted.length > 0) {
    for (const b of await source.getBlocks(sorted, { transactions: plan.transactions })) blocks.set(b.height, b);
  }
  for (const [height, list] of logs) {
    list.sort((a, b) => a.logIndex - b.logIndex);
    const block = blocks.get(height);
    if (block === undefined || list.some((l) => l.blockHash !== block.hash)) {
      throw new IdxError('CHAIN_CHANGED_DURING_FETCH', `block ${height} changed while its logs were fetched (a reorganisation); fetching again`, { retryable: true });
    }
  }
  return { from: range.from, to: range.to, blocks, logs, logCount };
}

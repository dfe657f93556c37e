import { IdxError } from '../../domain/errors.ts';
import type { EthBlock, EthLog } from '../../domain/blocks/chain-data.ts';
import type { ChainSource } from '../../domain/blocks/chain-source.ts';
import type { HeightRange } from '../../domain/blocks/next-range.ts';
import type { FetchPlan } from '../../domain/project/compile-data-sources.ts';

/** What was fetched for a range: the blocks a handler may need, by height, with their logs. */
export interface FetchedRange extends HeightRange {
  blocks: Map<number, EthBlock>;
  /** per height, the logs handlers may match; every log of the block once `logsComplete` */
  logs: Map<number, EthLog[]>;
  /** `logs` holds every log of each fetched block (the plan asked for them, or they were loaded since) */
  logsComplete: boolean;
  /** logs fetched in all, for the events/s figure */
  logCount: number;
}

/**
 * Fetches one range in as few round trips as the plan allows: one `eth_getLogs` over the range,
 * then one batch of blocks for the heights that have logs or a due block handler (all heights
 * when a transaction handler needs every transaction, unless a dictionary named the heights).
 * With `plan.extras` the blocks come with full transactions and every log of theirs, fetched in
 * the same round trip as the blocks.
 */
export async function fetchRange(source: ChainSource, plan: FetchPlan, range: HeightRange): Promise<FetchedRange> {
  const everyHeight = plan.transactions && plan.transactionHeights === undefined;
  const allLogs = plan.extras?.logs === true;
  const logs = new Map<number, EthLog[]>();
  const add = (list: readonly EthLog[]) => {
    for (const log of list) {
      // Providers may return logs of reorganised-away blocks as `removed`; they are not part of the chain.
      if (log.removed) continue;
      const at = logs.get(log.blockNumber);
      if (at === undefined) logs.set(log.blockNumber, [log]);
      else at.push(log);
    }
  };
  // Every block is fetched and every log wanted: one unfiltered query holds the filtered one.
  if (allLogs && everyHeight) add(await source.getLogs({ fromBlock: range.from, toBlock: range.to }));
  else if (plan.logs !== undefined) add(await source.getLogs(plan.logs));

  const heights = new Set<number>(plan.blockHeights);
  if (plan.transactionHeights !== undefined) for (const h of plan.transactionHeights) heights.add(h);
  else if (plan.transactions) for (let h = range.from; h <= range.to; h++) heights.add(h);
  for (const h of logs.keys()) heights.add(h);
  const sorted = [...heights].sort((a, b) => a - b);
  const blocks = new Map<number, EthBlock>();
  if (sorted.length > 0) {
    const full = plan.transactions || plan.extras?.transactions === true;
    const [fetchedBlocks, blockLogs] = await Promise.all([
      source.getBlocks(sorted, { transactions: full }),
      allLogs && !everyHeight ? source.getBlockLogs(sorted) : undefined,
    ]);
    for (const b of fetchedBlocks) blocks.set(b.height, b);
    if (blockLogs !== undefined) {
      sorted.forEach((h) => logs.delete(h));
      blockLogs.forEach((list) => add(list));
    }
  }
  let logCount = 0;
  for (const [height, list] of logs) {
    logCount += list.length;
    list.sort((a, b) => a.logIndex - b.logIndex);
    const block = blocks.get(height);
    if (block === undefined || list.some((l) => l.blockHash !== block.hash)) {
      throw new IdxError('CHAIN_CHANGED_DURING_FETCH', `block ${height} changed while its logs were fetched (a reorganisation); fetching again`, { retryable: true });
    }
  }
  return { from: range.from, to: range.to, blocks, logs, logsComplete: allLogs, logCount };
}

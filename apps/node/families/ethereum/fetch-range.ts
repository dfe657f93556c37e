import { IdxError } from '../../../../domain/errors.ts';
import type { EthBlock, EthLog } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { HeightRange } from '../../../../domain/blocks/next-range.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { blockFetch, completeHeights, logFetch } from './range-fetch-plan.ts';
import { verifyAgainstHeaders } from './verify-against-headers.ts';

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

export interface FetchRangeOptions {
  /**
   * --verify-receipts: read the header of every block of the range (not only of blocks with logs)
   * and the receipts of every block the log query may touch, to check the logs against the
   * headers' receipts roots.
   */
  verifyReceipts?: boolean;
}

/**
 * Fetches one range in as few round trips as the plan allows: one `eth_getLogs` over the range,
 * then one batch of blocks for the heights that have logs or a due block handler (all heights
 * when a transaction handler needs every transaction, unless a dictionary named the heights).
 * With `plan.extras` the blocks come with full transactions and every log of theirs, fetched in
 * the same round trip as the blocks. The logs are then held up against their blocks' headers
 * (`verifyAgainstHeaders`): an answer the headers contradict fails the fetch. What to ask for is
 * range-fetch-plan.ts's; this makes the round trips.
 */
export async function fetchRange(source: ChainSource, plan: FetchPlan, range: HeightRange, options: FetchRangeOptions = {}): Promise<FetchedRange> {
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
  const first = logFetch(plan, range);
  const { query } = first;
  const answer = query === undefined ? undefined : await source.getLogs(query);
  if (answer !== undefined) add(answer);

  const second = blockFetch(plan, range, first, logs.keys(), options.verifyReceipts === true);
  const { heights, headersOnly } = second;
  const blocks = new Map<number, EthBlock>();
  const headers = new Map<number, EthBlock>();
  const headerAnswers: EthBlock[][] = [];
  let blockLogs: EthLog[][] | undefined;
  if (heights.length > 0 || headersOnly.length > 0) {
    const [fetchedBlocks, logLists, otherHeaders] = await Promise.all([
      heights.length > 0 ? source.getBlocks(heights, { transactions: second.transactions }) : [],
      second.blockLogs ? source.getBlockLogs(heights) : undefined,
      headersOnly.length > 0 ? source.getBlocks(headersOnly, { transactions: false }) : [],
    ]);
    for (const b of fetchedBlocks) blocks.set(b.height, b);
    for (const b of [...fetchedBlocks, ...otherHeaders]) headers.set(b.height, b);
    headerAnswers.push(fetchedBlocks, otherHeaders);
    blockLogs = logLists;
    if (blockLogs !== undefined) {
      heights.forEach((h) => logs.delete(h));
      blockLogs.forEach((list) => add(list));
    }
  }
  let logCount = 0;
  for (const [height, list] of logs) {
    logCount += list.length;
    list.sort((a, b) => a.logIndex - b.logIndex);
    const block = blocks.get(height);
    if (block === undefined || list.some((l) => l.blockHash !== block.hash)) {
      throw new IdxError('CHAIN_CHANGED_DURING_FETCH', `block ${height} changed while its logs were fetched (a reorganisation); fetching again`, {
        retryable: true,
      });
    }
  }
  const complete = completeHeights(range, first, second, blockLogs !== undefined);
  await verifyAgainstHeaders(
    source,
    { query, answer, complete: { heights: complete, answer: blockLogs ?? answer }, logs, headers, headerAnswers },
    { verifyReceipts: options.verifyReceipts === true },
  );
  return { from: range.from, to: range.to, blocks, logs, logsComplete: first.allLogs, logCount };
}

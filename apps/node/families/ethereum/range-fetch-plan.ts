import type { HeightRange } from '../../../../domain/blocks/next-range.ts';
import type { LogQuery } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';

/** What a range's fetch asks for first: its log query (undefined: none), and what the plan wants of every block. */
export interface LogFetch {
  /** every height's block is fetched (a transaction handler, no dictionary to name the heights) */
  everyHeight: boolean;
  /** every log of each fetched block is wanted (`plan.extras.logs`) */
  allLogs: boolean;
  /** one `eth_getLogs`: the plan's, or, when every block and every log are wanted, the whole range unfiltered */
  query: LogQuery | undefined;
}

/** The first round trip of a range's fetch, from the plan. */
export function logFetch(plan: FetchPlan, range: HeightRange): LogFetch {
  const everyHeight = plan.transactions && plan.transactionHeights === undefined;
  const allLogs = plan.extras?.logs === true;
  // Every block is fetched and every log wanted: one unfiltered query holds the filtered one.
  const query = allLogs && everyHeight ? { fromBlock: range.from, toBlock: range.to } : plan.logs;
  return { everyHeight, allLogs, query };
}

/** What a range's fetch asks for once its logs are known. */
export interface BlockFetch {
  /** the blocks to fetch, ascending: the plan's, the transaction heights, the heights with logs */
  heights: number[];
  /** with full transactions */
  transactions: boolean;
  /** every log of those blocks, fetched beside them (`allLogs`, unless the unfiltered query brought them) */
  blockLogs: boolean;
  /** --verify-receipts: the headers of the range's other heights, to check them too */
  headersOnly: number[];
}

/** The second round trip of a range's fetch: the plan's blocks and those its logs are in. */
export function blockFetch(plan: FetchPlan, range: HeightRange, logs: LogFetch, logHeights: Iterable<number>, verifyReceipts: boolean): BlockFetch {
  const set = new Set<number>(plan.blockHeights);
  if (plan.transactionHeights !== undefined) for (const h of plan.transactionHeights) set.add(h);
  else if (plan.transactions) for (let h = range.from; h <= range.to; h++) set.add(h);
  for (const h of logHeights) set.add(h);
  const heights = [...set].sort((a, b) => a - b);
  // with --verify-receipts, the headers of the other heights too: a block the endpoint said nothing of is checked as well
  const headersOnly: number[] = [];
  if (verifyReceipts) for (let h = range.from; h <= range.to; h++) if (!set.has(h)) headersOnly.push(h);
  return {
    heights,
    transactions: plan.transactions || plan.extras?.transactions === true,
    blockLogs: logs.allLogs && !logs.everyHeight && heights.length > 0,
    headersOnly,
  };
}

/** The heights whose every log the fetch holds: the whole range from the unfiltered query, or the blocks whose logs came with them. */
export function completeHeights(range: HeightRange, logs: LogFetch, blocks: BlockFetch, gotBlockLogs: boolean): Set<number> {
  const complete = new Set<number>();
  if (logs.allLogs && logs.everyHeight) for (let h = range.from; h <= range.to; h++) complete.add(h);
  else if (gotBlockLogs) for (const h of blocks.heights) complete.add(h);
  return complete;
}

import { compareCallOrder, type CallOrder } from '../call-order.ts';
import type { LogQuery } from './chain-data.ts';
import { dictionaryEntries, type DictionaryEntry } from './dictionary-query.ts';
import {
  matchesFunctionFilter,
  matchesTopicFilter,
  normaliseTopicFilter,
  parseFunctionFilter,
  type FunctionCondition,
  type Keccak256,
  type TopicCondition,
} from './filters.ts';
import { compileBlockHandler } from '../../project/compile-block-handler.ts';
import type { DataSource, Handler } from '../../project/project-model.ts';

/** A handler with its filter turned into conditions that can be checked quickly. */
export type CompiledHandler =
  | { kind: 'block'; handler: string; modulo?: number; cron?: string }
  | { kind: 'transaction'; handler: string; from?: string; to?: string | null; fn: FunctionCondition }
  | { kind: 'log'; handler: string; topics: TopicCondition[] };

export interface CompiledDataSource {
  /** position among all data sources (manifest ones first, then dynamic ones in creation order) */
  index: number;
  startBlock: number;
  endBlock?: number;
  /** lowercase; absent = any contract */
  address?: string;
  /** the asset name of the ABI that decodes args */
  abi?: string;
  handlers: CompiledHandler[];
}

export function compileDataSource(
  ds: Pick<DataSource, 'startBlock' | 'endBlock' | 'options' | 'mapping'>,
  index: number,
  keccak256: Keccak256,
): CompiledDataSource {
  const out: CompiledDataSource = { index, startBlock: ds.startBlock, handlers: ds.mapping.handlers.map((h) => compileHandler(h, keccak256)) };
  if (ds.endBlock !== undefined) out.endBlock = ds.endBlock;
  if (ds.options?.address !== undefined) out.address = ds.options.address.toLowerCase();
  if (ds.options?.abi !== undefined) out.abi = ds.options.abi;
  return out;
}

function compileHandler(h: Handler, keccak256: Keccak256): CompiledHandler {
  switch (h.kind) {
    case 'ethereum/BlockHandler':
      return compileBlockHandler(h.handler, h.filter);
    case 'ethereum/TransactionHandler': {
      const out: CompiledHandler = { kind: 'transaction', handler: h.handler, fn: parseFunctionFilter(h.filter?.function, keccak256) };
      if (h.filter?.from !== undefined) out.from = h.filter.from.toLowerCase();
      if (h.filter !== undefined && 'to' in h.filter) out.to = h.filter.to === null || h.filter.to === undefined ? h.filter.to : h.filter.to.toLowerCase();
      return out;
    }
    case 'ethereum/LogHandler':
      return { kind: 'log', handler: h.handler, topics: normaliseTopicFilter(h.filter?.topics, keccak256) };
    default:
      throw new Error(`${h.kind} is not an EVM handler kind`);
  }
}

export function isActive(ds: CompiledDataSource, height: number): boolean {
  return ds.startBlock <= height && (ds.endBlock === undefined || height <= ds.endBlock);
}

function activeIn(ds: CompiledDataSource, from: number, to: number): boolean {
  return ds.startBlock <= to && (ds.endBlock === undefined || ds.endBlock >= from);
}

/**
 * What the mappings read beyond what matching needs: SubQuery hands every handler whole blocks
 * (`log.transaction`, `block.transactions`, every log in `block.logs` and `tx.logs`). idx fetches
 * them once a mapping is seen to read them, and from then on with the blocks.
 */
export interface BlockExtras {
  /** full transactions of every fetched block */
  transactions: boolean;
  /** every log of every fetched block, not only those a handler matches */
  logs: boolean;
}

/** What to ask the chain for, for the heights `[from, to]`. */
export interface FetchPlan {
  /** one merged log query, narrowed to the data sources' addresses and topic0s; absent when no log handler is active */
  logs?: LogQuery;
  /** full transactions of every block are needed (a transaction handler is active) */
  transactions: boolean;
  /** with `transactions`: only these heights can hold a matching transaction (a dictionary said so); absent = every height */
  transactionHeights?: number[];
  /** heights whose block a block handler needs; logs' blocks are added by the caller once logs are known */
  blockHeights: number[];
  /** what to ask a dictionary to narrow this plan; absent when a handler needs every block */
  dictionary?: DictionaryEntry[];
  /** what the fetched blocks must carry beyond what matching needs */
  extras?: BlockExtras;
}

/**
 * The fetch plan for a range: the fewest requests that still bring every log, transaction and block
 * a handler could match. Exact matching happens afterwards, per handler.
 */
export function planFetch(dataSources: readonly CompiledDataSource[], from: number, to: number, extras?: BlockExtras): FetchPlan {
  const active = dataSources.filter((ds) => activeIn(ds, from, to));
  let anyAddress = false;
  let anyTopic0 = false;
  const addresses = new Set<string>();
  const topic0s = new Set<string>();
  let hasLogHandler = false;
  let transactions = false;
  const blockHeights = new Set<number>();

  for (const ds of active) {
    const lo = Math.max(from, ds.startBlock);
    const hi = Math.min(to, ds.endBlock ?? to);
    for (const h of ds.handlers) {
      if (h.kind === 'log') {
        hasLogHandler = true;
        if (ds.address === undefined) anyAddress = true;
        else addresses.add(ds.address);
        const t0 = h.topics[0];
        if (t0 === null || t0 === undefined || t0 === '!null') anyTopic0 = true;
        else topic0s.add(t0);
      } else if (h.kind === 'transaction') {
        transactions = true;
      } else {
        // A cron filter needs every block's timestamp, and the one before the range, to see ticks pass (cronDue).
        const step = h.cron === undefined ? (h.modulo ?? 1) : 1;
        if (h.cron !== undefined && lo > 0) blockHeights.add(lo - 1);
        for (let height = Math.ceil(lo / step) * step; height <= hi; height += step) blockHeights.add(height);
      }
    }
  }
  const plan: FetchPlan = { transactions, blockHeights: [...blockHeights].sort((a, b) => a - b) };
  if (extras !== undefined && (extras.transactions || extras.logs)) plan.extras = { ...extras };
  const dictionary = dictionaryEntries(active, { from, to });
  if (dictionary !== undefined && dictionary.length > 0) plan.dictionary = dictionary;
  if (hasLogHandler) {
    const logs: LogQuery = { fromBlock: from, toBlock: to };
    if (!anyAddress) logs.address = [...addresses].sort();
    if (!anyTopic0) logs.topics = [[...topic0s].sort()];
    plan.logs = logs;
  }
  return plan;
}

/** The parts of a block that matching looks at. */
export interface MatchInput {
  height: number;
  /** seconds */
  timestamp: number;
  transactions?: readonly { transactionIndex: number; from: string; to: string | null; input: string }[];
  logs: readonly { address: string; topics: readonly string[]; transactionIndex: number; logIndex: number }[];
}

export type HandlerMatch = (
  | { kind: 'block'; handler: string; dataSource: number }
  | { kind: 'transaction'; handler: string; dataSource: number; transactionIndex: number }
  | { kind: 'log'; handler: string; dataSource: number; logIndex: number }
) & {
  /** its place in the block's calls (call-order.ts): the item, the data source, the handler */
  order: CallOrder;
};

/**
 * Which handlers run for a block, in SubQuery's order: block handlers first, then for each
 * transaction its transaction handlers followed by the handlers of its logs; within one item,
 * data sources and their handlers in manifest order. `cronDue(ds, handler)` says whether a
 * timestamp-filtered block handler is due at this block (it needs state across blocks).
 */
export function matchHandlers(
  dataSources: readonly CompiledDataSource[],
  block: MatchInput,
  cronDue: (dataSource: number, handler: number) => boolean = () => false,
): HandlerMatch[] {
  const active = dataSources.filter((ds) => isActive(ds, block.height));
  const calls: HandlerMatch[] = [];
  for (const ds of active) {
    ds.handlers.forEach((h, i) => {
      if (h.kind !== 'block') return;
      const due = h.cron !== undefined ? cronDue(ds.index, i) : h.modulo === undefined || block.height % h.modulo === 0;
      if (due) calls.push({ kind: 'block', handler: h.handler, dataSource: ds.index, order: [0, 0, 0, ds.index, i] });
    });
  }

  const items: HandlerMatch[] = [];
  for (const tx of block.transactions ?? []) {
    const from = tx.from.toLowerCase();
    const to = tx.to?.toLowerCase() ?? null;
    for (const ds of active) {
      // `options.address` restricts transactions to those sent to it.
      if (ds.address !== undefined && to !== ds.address) continue;
      ds.handlers.forEach((h, i) => {
        if (h.kind !== 'transaction') return;
        if (h.from !== undefined && from !== h.from) return;
        if (h.to !== undefined && to !== h.to) return;
        if (!matchesFunctionFilter(h.fn, tx.input)) return;
        const { transactionIndex } = tx;
        items.push({ kind: 'transaction', handler: h.handler, dataSource: ds.index, transactionIndex, order: [1, transactionIndex, 0, ds.index, i] });
      });
    }
  }
  for (const log of block.logs) {
    const address = log.address.toLowerCase();
    for (const ds of active) {
      if (ds.address !== undefined && address !== ds.address) continue;
      ds.handlers.forEach((h, i) => {
        if (h.kind !== 'log' || !matchesTopicFilter(h.topics, log.topics)) return;
        const order = [1, log.transactionIndex, 1 + log.logIndex, ds.index, i];
        items.push({ kind: 'log', handler: h.handler, dataSource: ds.index, logIndex: log.logIndex, order });
      });
    }
  }
  // each transaction's own handlers, then its logs' in log order; in each, data sources and handlers in order
  items.sort((a, b) => compareCallOrder(a.order, b.order));
  return calls.concat(items);
}

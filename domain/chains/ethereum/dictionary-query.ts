import type { HeightRange } from '../../blocks/next-range.ts';
import type { CompiledDataSource, FetchPlan } from './compile-data-sources.ts';

/**
 * Questions for a SubQuery EVM dictionary (a GraphQL service over the entities `evmLogs {address,
 * topics0..3, blockHeight}` and `evmTransactions {from, to, func, blockHeight}`): which heights in a
 * range hold a log or a transaction some handler may match. Conditions may be coarser than the
 * handlers' filters, never finer: the dictionary only narrows what is fetched, exact matching
 * happens afterwards on the fetched data.
 */

export type DictionaryEntity = 'evmLogs' | 'evmTransactions';

export interface DictionaryCondition {
  field: string;
  matcher: 'equalTo' | 'isNull';
  value: string | boolean;
}

/** One handler's question; an entry without conditions matches every log (or transaction). */
export interface DictionaryEntry {
  entity: DictionaryEntity;
  conditions: DictionaryCondition[];
}

export interface DictionaryRequest {
  query: string;
  variables: Record<string, unknown>;
}

/** Heights with a possibly matching log, and with a possibly matching transaction, in ascending order. */
export interface DictionaryHeights {
  logs: number[];
  transactions: number[];
}

const TOPIC_POSITIONS = 4;

/**
 * The dictionary entries for the data sources active in a range, or undefined when some handler
 * needs every block: a block handler without `modulo` (or with a `timestamp` cron, which needs every
 * block's time). Block handlers with `modulo` need no dictionary: their heights are known.
 */
export function dictionaryEntries(dataSources: readonly CompiledDataSource[], range: HeightRange): DictionaryEntry[] | undefined {
  const entries = new Map<string, DictionaryEntry>();
  const add = (entry: DictionaryEntry) => entries.set(`${entry.entity}|${JSON.stringify(entry.conditions)}`, entry);
  for (const ds of dataSources) {
    if (ds.startBlock > range.to || (ds.endBlock !== undefined && ds.endBlock < range.from)) continue;
    for (const h of ds.handlers) {
      if (h.kind === 'block') {
        if (h.cron !== undefined || h.modulo === undefined || h.modulo <= 1) return undefined;
      } else if (h.kind === 'log') {
        const conditions: DictionaryCondition[] = [];
        if (ds.address !== undefined) conditions.push({ field: 'address', matcher: 'equalTo', value: ds.address });
        h.topics.slice(0, TOPIC_POSITIONS).forEach((topic, i) => {
          if (topic === '!null') conditions.push({ field: `topics${i}`, matcher: 'isNull', value: false });
          else if (topic !== null) conditions.push({ field: `topics${i}`, matcher: 'equalTo', value: topic.toLowerCase() });
        });
        add({ entity: 'evmLogs', conditions });
      } else {
        const conditions: DictionaryCondition[] = [];
        // `options.address` restricts transactions to those sent to it, as in matching.
        const to = ds.address ?? h.to;
        if (typeof to === 'string') conditions.push({ field: 'to', matcher: 'equalTo', value: to });
        else if (to === null) conditions.push({ field: 'to', matcher: 'isNull', value: true });
        if (h.from !== undefined) conditions.push({ field: 'from', matcher: 'equalTo', value: h.from });
        // The dictionary knows 4-byte selectors; a longer hex prefix is narrowed to its selector.
        if (h.fn.kind === 'prefix' && h.fn.prefix.length >= 10)
          conditions.push({ field: 'func', matcher: 'equalTo', value: h.fn.prefix.slice(0, 10).toLowerCase() });
        add({ entity: 'evmTransactions', conditions });
      }
    }
  }
  return [...entries.values()];
}

/**
 * The GraphQL request for the heights of `[range.from, range.to]` that the entries match, in the shape
 * SubQuery's nodes send (filter with `or`, `orderBy: BLOCK_HEIGHT_ASC`, `distinct: [BLOCK_HEIGHT]`),
 * plus `_metadata` so every answer says how far the dictionary has indexed. Values travel as
 * variables. With `distinct`, `first` = the range's length can never cut the answer short.
 */
export function dictionaryRequest(entries: readonly DictionaryEntry[], range: HeightRange, options: { distinct: boolean; limit: number }): DictionaryRequest {
  const variables: Record<string, unknown> = { from: String(range.from), to: String(range.to + 1) };
  const declarations = ['$from: BigFloat!', '$to: BigFloat!'];
  const fields: string[] = ['_metadata { lastProcessedHeight genesisHash chain }'];
  for (const entity of ['evmLogs', 'evmTransactions'] as const) {
    const mine = entries.filter((e) => e.entity === entity);
    if (mine.length === 0) continue;
    const alternatives: string[] = [];
    // One entry without conditions matches everything: the others add nothing.
    if (!mine.some((e) => e.conditions.length === 0)) {
      for (const entry of mine) {
        const parts = entry.conditions.map((c) => {
          const name = `v${declarations.length}`;
          declarations.push(`$${name}: ${typeof c.value === 'boolean' ? 'Boolean!' : 'String!'}`);
          variables[name] = c.value;
          return `{ ${c.field}: { ${c.matcher}: $${name} } }`;
        });
        alternatives.push(`{ and: [${parts.join(', ')}] }`);
      }
    }
    const or = alternatives.length > 0 ? `, or: [${alternatives.join(', ')}]` : '';
    const distinct = options.distinct ? ', distinct: [BLOCK_HEIGHT]' : '';
    fields.push(
      `${entity}(filter: { blockHeight: { greaterThanOrEqualTo: $from, lessThan: $to }${or} }, orderBy: BLOCK_HEIGHT_ASC, first: ${options.limit}${distinct}) { nodes { blockHeight } }`,
    );
  }
  return { query: `query (${declarations.join(', ')}) { ${fields.join(' ')} }`, variables };
}

/**
 * The heights in a dictionary answer, or undefined when a list came back full (`first` reached: rows
 * beyond it are unknown, so the answer cannot be trusted for the whole range).
 */
export function dictionaryHeights(data: Record<string, unknown>, limit: number): DictionaryHeights | undefined {
  const read = (entity: DictionaryEntity): number[] | undefined => {
    const nodes = (data[entity] as { nodes?: { blockHeight: string | number }[] } | undefined)?.nodes;
    if (nodes === undefined) return [];
    if (nodes.length >= limit) return undefined;
    return [...new Set(nodes.map((n) => Number(n.blockHeight)))].sort((a, b) => a - b);
  };
  const logs = read('evmLogs');
  const transactions = read('evmTransactions');
  if (logs === undefined || transactions === undefined) return undefined;
  return { logs, transactions };
}

/**
 * The plan narrowed by a dictionary's answer: no `eth_getLogs` when no height can hold a matching
 * log, else one over just the span that can; full transactions only where a transaction can match.
 * Blocks that are fetched still come with their transactions, exactly as without a dictionary.
 */
export function narrowPlan(plan: FetchPlan, heights: DictionaryHeights): FetchPlan {
  const out: FetchPlan = { transactions: plan.transactions, blockHeights: plan.blockHeights };
  if (plan.extras !== undefined) out.extras = plan.extras;
  if (plan.logs !== undefined && heights.logs.length > 0) {
    out.logs = { ...plan.logs, fromBlock: Math.max(plan.logs.fromBlock, heights.logs[0]!), toBlock: Math.min(plan.logs.toBlock, heights.logs.at(-1)!) };
  }
  if (plan.transactions) out.transactionHeights = heights.transactions;
  return out;
}

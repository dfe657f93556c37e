import { buildSchema, graphql } from 'graphql';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { startLocalServer, type LocalServer } from './local-rpc-server.ts';
import type { Teardown } from './teardown.ts';

/**
 * A SubQuery-style EVM dictionary for tests: a real GraphQL server whose `evmLogs` and
 * `evmTransactions` come from the chain under test (read once, up to `height`), answering the
 * filter subset dictionaries are asked (`and`/`or`, `equalTo`, `isNull`, block-height bounds).
 */
export interface DictionaryServerOptions {
  /** the dictionary's lastProcessedHeight; it knows nothing above */
  height: number;
  /** what `_metadata.genesisHash` claims; default the chain's */
  genesisHash?: string;
  /** an older dictionary without `distinct` */
  distinct?: boolean;
  /** answer this late, to provoke --dictionary-timeout */
  delayMs?: number;
}

export interface DictionaryServer extends LocalServer {
  /** GraphQL queries received, without the metadata-only ones */
  rangeQueries(): number;
}

const SDL = (distinct: boolean) => `
  scalar BigFloat
  type Meta { lastProcessedHeight: Int, genesisHash: String, chain: String }
  input StringFilter { equalTo: String, isNull: Boolean }
  input BigFloatFilter { greaterThanOrEqualTo: BigFloat, lessThan: BigFloat }
  input EvmLogFilter { blockHeight: BigFloatFilter, address: StringFilter, topics0: StringFilter, topics1: StringFilter, topics2: StringFilter, topics3: StringFilter, and: [EvmLogFilter!], or: [EvmLogFilter!] }
  input EvmTransactionFilter { blockHeight: BigFloatFilter, from: StringFilter, to: StringFilter, func: StringFilter, and: [EvmTransactionFilter!], or: [EvmTransactionFilter!] }
  enum OrderBy { BLOCK_HEIGHT_ASC }
  enum Distinct { BLOCK_HEIGHT }
  type Row { blockHeight: BigFloat! }
  type Rows { nodes: [Row!]! }
  type Query {
    _metadata: Meta
    evmLogs(filter: EvmLogFilter, orderBy: [OrderBy!], first: Int${distinct ? ', distinct: [Distinct!]' : ''}): Rows
    evmTransactions(filter: EvmTransactionFilter, orderBy: [OrderBy!], first: Int${distinct ? ', distinct: [Distinct!]' : ''}): Rows
  }`;

type Row = Record<string, string | null> & { blockHeight: string };
type Filter = Record<string, unknown> & { and?: Filter[]; or?: Filter[] };

function matches(row: Row, filter: Filter | undefined): boolean {
  if (filter === undefined) return true;
  for (const [field, cond] of Object.entries(filter)) {
    if (field === 'and' && !(cond as Filter[]).every((f) => matches(row, f))) return false;
    if (field === 'or' && !(cond as Filter[]).some((f) => matches(row, f))) return false;
    if (field === 'and' || field === 'or') continue;
    const c = cond as Record<string, unknown>;
    const value = row[field] ?? null;
    if (field === 'blockHeight') {
      if (c.greaterThanOrEqualTo !== undefined && Number(value) < Number(c.greaterThanOrEqualTo)) return false;
      if (c.lessThan !== undefined && Number(value) >= Number(c.lessThan)) return false;
      continue;
    }
    if (c.equalTo !== undefined && value !== c.equalTo) return false;
    if (c.isNull !== undefined && (value === null) !== c.isNull) return false;
  }
  return true;
}

export async function startDictionaryServer(t: Teardown, chain: RpcClient, options: DictionaryServerOptions): Promise<DictionaryServer> {
  const hex = `0x${options.height.toString(16)}`;
  const rawLogs = await chain.request<{ blockNumber: string; address: string; topics: string[] }[]>('eth_getLogs', [{ fromBlock: '0x0', toBlock: hex }]);
  const logs: Row[] = rawLogs.map((l) => ({
    blockHeight: String(Number(l.blockNumber)),
    address: l.address.toLowerCase(),
    ...Object.fromEntries([0, 1, 2, 3].map((i) => [`topics${i}`, l.topics[i]?.toLowerCase() ?? null])),
  }));
  const heights = Array.from({ length: options.height + 1 }, (_, h) => h);
  const blocks = await chain.batch<{ transactions: { from: string; to: string | null; input: string }[] }>(
    heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [`0x${h.toString(16)}`, true] })),
  );
  const transactions: Row[] = blocks.flatMap((b, h) =>
    b.transactions.map((tx) => ({
      blockHeight: String(h),
      from: tx.from.toLowerCase(),
      to: tx.to?.toLowerCase() ?? null,
      func: tx.input.length >= 10 ? tx.input.slice(0, 10) : null,
    })),
  );
  const genesis = options.genesisHash ?? (await chain.request<{ hash: string }>('eth_getBlockByNumber', ['0x0', false])).hash;
  const chainId = String(Number(await chain.request<string>('eth_chainId', [])));

  const distinct = options.distinct ?? true;
  const schema = buildSchema(SDL(distinct));
  const list = (rows: Row[]) => (args: { filter?: Filter; first?: number; distinct?: string[] }) => {
    let hits = rows.filter((r) => matches(r, args.filter)).sort((a, b) => Number(a.blockHeight) - Number(b.blockHeight));
    if (args.distinct?.includes('BLOCK_HEIGHT')) hits = hits.filter((r, i) => i === 0 || r.blockHeight !== hits[i - 1]!.blockHeight);
    return { nodes: hits.slice(0, args.first ?? 100) };
  };
  const root = {
    _metadata: () => ({ lastProcessedHeight: options.height, genesisHash: genesis, chain: chainId }),
    evmLogs: list(logs),
    evmTransactions: list(transactions),
  };
  const server = await startLocalServer(t, async (body) => {
    const { query, variables } = body as { query: string; variables?: Record<string, unknown> };
    const result = await graphql({ schema, source: query, rootValue: root, variableValues: variables ?? null });
    return { json: result, ...(options.delayMs !== undefined && { delayMs: options.delayMs }) };
  });
  return { ...server, rangeQueries: () => server.bodies.filter((b) => /evm(Logs|Transactions)\(/.test((b as { query: string }).query)).length };
}

import type { ChainFamily } from '../../../../domain/chains/chain-family.ts';
import type { EthBlock, EthLog } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { BlockContent, HandlerCall } from '../../../../domain/chains/ethereum/handler-call.ts';
import type { JsonAbi } from '../../../../domain/mapping/json-abi.ts';
import {
  compileDataSource,
  matchHandlers,
  planFetch,
  type CompiledDataSource,
  type FetchPlan,
} from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { cronDue } from '../../../../domain/project/cron-schedule.ts';
import type { Keccak256 } from '../../../../domain/chains/ethereum/filters.ts';
import type { DataSource } from '../../../../domain/project/project-model.ts';
import type { BlockExtrasLoader } from './block-extras.ts';
import type { FetchedRange } from './fetch-range.ts';

/** An EVM data source ready for matching, with the ABI that decodes its handlers' args. */
export interface EthereumSource {
  compiled: CompiledDataSource;
  abi?: JsonAbi;
}

export type EthereumFamily = ChainFamily<EthereumSource, FetchPlan, FetchedRange, BlockContent, HandlerCall>;

export interface EthereumFamilyDeps {
  /** the JSON ABI of a data source's `options.abi` asset */
  abiOf: (ds: DataSource) => JsonAbi | undefined;
  keccak256: Keccak256;
  /** what mappings read beyond matching (`log.transaction`, every log of a block): plans ask for it, blocks load it */
  extras?: BlockExtrasLoader;
}

/**
 * The EVM family (`ethereum/Runtime`): block, transaction and log handlers matched by SubQuery's
 * filters and order; handlers receive the block, its transactions and logs (`BlockContent`).
 */
export function createEthereumFamily(deps: EthereumFamilyDeps): EthereumFamily {
  return {
    name: 'ethereum',
    specName: 'ethereum',

    compile(ds, index) {
      const s: EthereumSource = { compiled: compileDataSource(ds, index, deps.keccak256) };
      const abi = deps.abiOf(ds);
      if (abi !== undefined) s.abi = abi;
      return s;
    },

    plan: (sources, from, to) =>
      planFetch(
        sources.map((s) => s.compiled),
        from,
        to,
        deps.extras?.wanted(),
      ),

    blockCalls(sources, fetched, height, extra) {
      // the block's transactions and logs are loaded from this range when a mapping reads them
      deps.extras?.use(fetched);
      const block = blockOf(fetched.blocks.get(height), extra?.blocks.get(height));
      if (block === undefined) return undefined;
      const prev = fetched.blocks.get(height - 1);
      const logs = unionOfLogs(fetched.logs.get(height), extra?.logs.get(height));
      const logsComplete = fetched.logsComplete || extra?.logsComplete === true;
      const byIndex = new Map(sources.map((s) => [s.compiled.index, s]));
      const matches = matchHandlers(
        sources.map((s) => s.compiled),
        { height, timestamp: block.timestamp, transactions: block.transactions, logs },
        (ds, h) => {
          const handler = byIndex.get(ds)!.compiled.handlers[h]!;
          return handler.kind === 'block' && handler.cron !== undefined && cronDue(handler.cron, prev?.timestamp ?? block.timestamp - 1, block.timestamp);
        },
      );
      if (matches.length === 0) return undefined;
      const logPos = new Map(logs.map((l, i) => [l.logIndex, i]));
      const calls = matches.map((m): HandlerCall => {
        const abi = byIndex.get(m.dataSource)!.abi;
        if (m.kind === 'block') return { handler: m.handler, kind: 'block' };
        if (m.kind === 'log') return { handler: m.handler, kind: 'log', index: logPos.get(m.logIndex)!, ...(abi && { abi }) };
        return { handler: m.handler, kind: 'transaction', index: m.transactionIndex, ...(abi && { abi }) };
      });
      return { content: { block, logs, logsComplete }, calls, order: matches.map((m) => m.order) };
    },
  };
}

/** The block from the range's fetch, or from the fetch for new data sources when only that one holds its transactions. */
function blockOf(own: EthBlock | undefined, again: EthBlock | undefined): EthBlock | undefined {
  if (own === undefined) return again;
  return own.transactions === undefined && again?.transactions !== undefined ? again : own;
}

/** A block's logs from two fetches, once each, in log order. */
function unionOfLogs(own: readonly EthLog[] = [], again: readonly EthLog[] = []): readonly EthLog[] {
  if (again.length === 0) return own;
  const byIndex = new Map<number, EthLog>();
  for (const log of [...own, ...again]) byIndex.set(log.logIndex, log);
  return [...byIndex.values()].sort((a, b) => a.logIndex - b.logIndex);
}

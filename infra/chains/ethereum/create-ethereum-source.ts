import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import type { EthBlock, EthLog, EthReceipt, LogQuery } from '../../../domain/chains/ethereum/chain-data.ts';
import type { CallRequest, ChainSource } from '../../../domain/chains/ethereum/chain-source.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { RpcClient, RpcSettled } from '../../rpc/create-rpc-client.ts';
import { toBlockRef, toEthBlock, toEthLog, toEthReceipt } from './eth-wire.ts';
import { hexToNumber, toLowerHex, toQuantity } from '../../rpc/hex-quantity.ts';
import { parseLogRangeRefusal } from './log-range-refusal.ts';
import { RpcError, isMethodUnsupported } from '../../rpc/rpc-error.ts';

interface Range {
  fromBlock: number;
  toBlock: number;
}

/**
 * The `ChainSource` of an Ethereum JSON-RPC endpoint (or several, behind the client). Every
 * multi-height read is one `batch()`; what the endpoints turn out not to support (the `finalized`
 * tag, `eth_getBlockReceipts`, wide log ranges) is learned once per source and not asked again.
 */
export interface EthereumSourceOptions {
  /** the widest `eth_getLogs` range to ask for, when the provider's limit is known up front */
  maxLogBlocks?: number;
  /** told once per limit learned, e.g. to log "the endpoint limits eth_getLogs to 10000 blocks" */
  onNotice?: (message: string) => void;
}

export function createEthereumSource(client: RpcClient, options: EthereumSourceOptions = {}): ChainSource {
  let chainId: Promise<number> | undefined;
  let genesisHash: Promise<string> | undefined;
  let finalizedTagSupported = true;
  let blockReceiptsSupported = true;
  /** the widest log range an endpoint has stated it accepts */
  let maxLogBlocks = options.maxLogBlocks ?? Number.POSITIVE_INFINITY;
  const notice = options.onNotice ?? (() => {});
  /** per result list handed out: who answered for a height, to name a lying endpoint */
  const origins = new WeakMap<object, (height: number) => string | undefined>();
  const byHeight = <T extends object>(result: T, heights: readonly number[], settled: readonly RpcSettled[]): T => {
    origins.set(result, (height) => {
      const i = heights.indexOf(height);
      const s = i < 0 ? undefined : settled[i];
      return s?.ok ? s.endpoint : undefined;
    });
    return result;
  };

  async function getBlocks(heights: readonly number[], options: { transactions: boolean }): Promise<EthBlock[]> {
    const settled = await client.batchSettled(heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(h), options.transactions] })));
    const blocks = settled.map((s, i) => {
      if (!s.ok) throw s.error;
      return toEthBlock(present(s.value, heights[i]!), { full: options.transactions });
    });
    return byHeight(blocks, heights, settled);
  }

  async function getReceipts(txHashes: readonly string[]): Promise<EthReceipt[]> {
    const raw = await client.batch(txHashes.map((h) => ({ method: 'eth_getTransactionReceipt', params: [h] })));
    return raw.map((r, i) => {
      if (r === null)
        throw new IdxError('CHAIN_RECEIPT_NOT_FOUND', `the endpoint has no receipt for transaction ${txHashes[i]}; it may not be synced yet`, {
          retryable: true,
        });
      return toEthReceipt(r);
    });
  }

  return {
    chainId() {
      chainId ??= client.request('eth_chainId').then((id) => hexToNumber(id, 'chain id'));
      return chainId.catch((err) => {
        chainId = undefined;
        throw err;
      });
    },

    genesisHash() {
      genesisHash ??= client.request('eth_getBlockByNumber', ['0x0', false]).then((b) => toBlockRef(present(b, 0)).hash);
      return genesisHash.catch((err) => {
        genesisHash = undefined;
        throw err;
      });
    },

    async bestHeight() {
      return hexToNumber(await client.request('eth_blockNumber'), 'block number');
    },

    async finalizedHeight() {
      if (!finalizedTagSupported) return null;
      try {
        const block = await client.request('eth_getBlockByNumber', ['finalized', false]);
        return block === null ? null : toBlockRef(block).height;
      } catch (err) {
        // older nodes answer "invalid block tag" / "unknown block": fall back to confirmations for good
        if (err instanceof RpcError && !err.retryable) {
          finalizedTagSupported = false;
          notice(`the endpoint does not know the "finalized" block tag (${err.message}); finality falls back to block confirmations`);
          return null;
        }
        throw err;
      }
    },

    getBlocks,

    async getBlockRefs(heights) {
      const raw = await client.batch(heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [toQuantity(h), false] })));
      return raw.map((b, i): BlockRef => toBlockRef(present(b, heights[i]!)));
    },

    async getLogs(query) {
      if (query.toBlock < query.fromBlock || (query.address !== undefined && query.address.length === 0)) return [];
      const done: { fromBlock: number; toBlock: number; logs: EthLog[]; endpoint?: string }[] = [];
      let queue = split(query, maxLogBlocks);
      while (queue.length > 0) {
        const settled = await client.batchSettled(queue.map((r) => ({ method: 'eth_getLogs', params: [logFilter(query, r)] })));
        const next: Range[] = [];
        settled.forEach((s, i) => {
          const range = queue[i]!;
          if (s.ok) {
            if (!Array.isArray(s.value))
              throw new IdxError('RPC_BAD_RESPONSE', `eth_getLogs answered ${JSON.stringify(s.value)?.slice(0, 80)} instead of a list of logs`);
            done.push({ fromBlock: range.fromBlock, toBlock: range.toBlock, logs: s.value.map(toEthLog), endpoint: s.endpoint });
            return;
          }
          const advice = parseLogRangeRefusal(s.error, range);
          if (advice === null) throw s.error;
          if (range.fromBlock === range.toBlock) {
            throw new IdxError(
              'RPC_LOG_RANGE_REFUSED',
              `the endpoint refuses eth_getLogs even for the single block ${range.fromBlock}: ${s.error.message}. Narrow the data source's address/topics filter or use an endpoint without this limit.`,
              { cause: s.error },
            );
          }
          const blocks = range.toBlock - range.fromBlock + 1;
          let span = Math.ceil(blocks / 2);
          if (advice.maxBlocks !== undefined) {
            span = advice.maxBlocks;
            if (advice.maxBlocks < maxLogBlocks)
              notice(`the endpoint limits eth_getLogs to ${advice.maxBlocks} blocks per query; asking for narrower ranges from now on`);
            maxLogBlocks = Math.min(maxLogBlocks, advice.maxBlocks);
          } else if (advice.suggestedToBlock !== undefined) {
            span = advice.suggestedToBlock - range.fromBlock + 1;
          }
          next.push(...split(range, span));
        });
        queue = next;
      }
      const logs = done.sort((a, b) => a.fromBlock - b.fromBlock).flatMap((d) => d.logs);
      origins.set(logs, (height) => done.find((d) => d.fromBlock <= height && height <= d.toBlock)?.endpoint);
      return logs;
    },

    async getBlockLogs(heights) {
      if (heights.length === 0) return [];
      const settled = await client.batchSettled(
        heights.map((h) => ({ method: 'eth_getLogs', params: [{ fromBlock: toQuantity(h), toBlock: toQuantity(h) }] })),
      );
      const lists = settled.map((s, i) => {
        if (!s.ok) throw s.error;
        const logs = s.value;
        if (!Array.isArray(logs))
          throw new IdxError('RPC_BAD_RESPONSE', `eth_getLogs of block ${heights[i]} answered ${JSON.stringify(logs)?.slice(0, 80)} instead of a list of logs`);
        return logs.map(toEthLog).sort((a, b) => a.logIndex - b.logIndex);
      });
      return byHeight(lists, heights, settled);
    },

    getReceipts,

    async getBlockReceipts(heights) {
      if (blockReceiptsSupported) {
        const settled = await client.batchSettled(heights.map((h) => ({ method: 'eth_getBlockReceipts', params: [toQuantity(h)] })));
        const unsupported = settled.find((s) => !s.ok && isMethodUnsupported(s.error));
        if (unsupported === undefined) {
          const lists = settled.map((s, i) => {
            if (!s.ok) throw s.error;
            if (!Array.isArray(s.value)) throw notFound(heights[i]!);
            return s.value.map(toEthReceipt);
          });
          return byHeight(lists, heights, settled);
        }
        blockReceiptsSupported = false;
        notice('the endpoint has no eth_getBlockReceipts; fetching receipts one transaction at a time (in batches)');
      }
      // without eth_getBlockReceipts: the blocks' transaction hashes, then every receipt, in two batches
      const blocks = await getBlocks(heights, { transactions: false });
      const receipts = await getReceipts(blocks.flatMap((b) => b.transactionHashes));
      let at = 0;
      return blocks.map((b) => receipts.slice(at, (at += b.transactionHashes.length)));
    },

    answeredBy: (result, height) => origins.get(result)?.(height),
    distrust: (endpoint) => {
      for (const e of endpoint.split(', ')) client.distrust(e);
    },

    async call(request: CallRequest, height: number) {
      const tx: Record<string, string> = { to: request.to, data: request.data };
      if (request.from !== undefined) tx.from = request.from;
      return toLowerHex(await client.request('eth_call', [tx, toQuantity(height)]), 'eth_call result');
    },
  };
}

function present(block: unknown, height: number): unknown {
  if (block === null || block === undefined) throw notFound(height);
  return block;
}

function notFound(height: number): IdxError {
  return new IdxError('CHAIN_BLOCK_NOT_FOUND', `the endpoint has no block ${height}: it is beyond the chain head or the endpoint is behind (or pruned)`, {
    retryable: true,
  });
}

/** [from, to] cut into consecutive ranges of at most `span` blocks. */
function split(range: Range, span: number): Range[] {
  const out: Range[] = [];
  const step = Math.max(1, Math.floor(Math.min(span, range.toBlock - range.fromBlock + 1)));
  for (let from = range.fromBlock; from <= range.toBlock; from += step) out.push({ fromBlock: from, toBlock: Math.min(range.toBlock, from + step - 1) });
  return out;
}

function logFilter(query: LogQuery, range: Range): Record<string, unknown> {
  const filter: Record<string, unknown> = { fromBlock: toQuantity(range.fromBlock), toBlock: toQuantity(range.toBlock) };
  if (query.address !== undefined) filter.address = query.address.length === 1 ? query.address[0] : query.address;
  if (query.topics !== undefined) {
    const topics = [...query.topics];
    // trailing "any" positions say nothing; some providers reject them
    while (topics.length > 0 && topics[topics.length - 1] === null) topics.pop();
    if (topics.length > 0) filter.topics = topics.map((t) => (t === null ? null : t.length === 1 ? t[0] : t));
  }
  return filter;
}

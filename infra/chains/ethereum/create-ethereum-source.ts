import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import type { EthBlock, EthReceipt } from '../../../domain/chains/ethereum/chain-data.ts';
import type { CallRequest, ChainSource } from '../../../domain/chains/ethereum/chain-source.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { RpcClient, RpcSettled } from '../../rpc/create-rpc-client.ts';
import { toBlockRef, toEthBlock, toEthLog, toEthReceipt } from './eth-wire.ts';
import { createLogRangeReader } from './log-range-reader.ts';
import { hexToNumber, toLowerHex, toQuantity } from '../../rpc/hex-quantity.ts';
import { RpcError, isMethodUnsupported } from '../../rpc/rpc-error.ts';

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
  const notice = options.onNotice ?? (() => {});
  const readLogs = createLogRangeReader(client, { maxLogBlocks: options.maxLogBlocks, notice });
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
      const { logs, answeredBy } = await readLogs(query);
      origins.set(logs, answeredBy);
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

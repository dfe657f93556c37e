import type { ShardStore, StoredBlock } from '../../infra/postgres/shard-store.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber, toQuantity } from '../../infra/rpc/hex-quantity.ts';
import { invalidParams, JsonRpcServerError, METHOD_NOT_FOUND, RawJson, type JsonRpcMethod } from '../../infra/rpc/json-rpc-server.ts';
import { ShardRangeRefused, type ShardAdmin } from './shard-admin.ts';
import type { ShardKeeper } from './shard-keeper.ts';
import { expectCount, parseBlockParam, parseBool, parseHash, parseLogFilter, parseQuantity, type BlockParam, type BlockTag } from './shard-params.ts';
import { newestServed, servedRange } from './shard-range.ts';
import type { SyncStatus } from './shard-sync.ts';
import { getLogs, SERVER_ERROR } from './shard-get-logs.ts';
import { createShardHeights } from './shard-heights.ts';

export { PRUNED_HISTORY } from './shard-heights.ts';

export interface ShardMethodsOptions {
  store: ShardStore;
  keeper: ShardKeeper;
  /** whether the admin endpoint runs (`--admin-secret-file`): said in the refusal of admin_* here */
  adminEndpoint: boolean;
  status: SyncStatus;
  /** for the `safe` and `finalized` tags, which only the upstream knows */
  upstream: RpcClient;
  chainId: string;
  netVersion: string;
  maxLogRange: number;
  maxLogResults: number;
  /** the most bytes of logs one eth_getLogs may answer (`--max-response-bytes`) */
  maxLogBytes: number;
  now?: () => number;
}

const NULL = new RawJson('null');

/** The admin methods: served only on the admin endpoint. */
export const ADMIN_METHODS = ['admin_setEndHeight', 'admin_setStartHeight'] as const;

/**
 * The public JSON-RPC methods of idx-shard: the Ethereum data methods limited to `[tail, head]` and
 * `idx_dataInfo`; the admin methods answer where they are served instead (-32601, as geth answers
 * a namespace it does not expose on an endpoint).
 */
export function createShardMethods(options: ShardMethodsOptions): Record<string, JsonRpcMethod> {
  const { store, keeper, status, upstream } = options;
  const now = options.now ?? Date.now;
  const heights = createShardHeights(upstream, now);
  const resolve = heights.resolve;

  async function blockJson(block: StoredBlock | undefined, full: boolean): Promise<RawJson> {
    if (block === undefined) return NULL;
    if (!full || block.txCount === 0) return new RawJson(block.body);
    const txs = await store.transactions(block.number);
    // the body was written by JSON.stringify: its transaction hashes hold no brackets
    const key = '"transactions":[';
    const at = block.body.indexOf(key);
    const end = block.body.indexOf(']', at);
    return new RawJson(`${block.body.slice(0, at + key.length)}${txs.join(',')}${block.body.slice(end)}`);
  }

  async function blockByParam(param: unknown): Promise<StoredBlock | undefined> {
    const r = keeper.range();
    // EIP-1898-style hash where a block is named
    if (typeof param === 'string' && param.length === 66) return store.blockByHash(parseHash(param, 'block hash'), servedRange(r));
    const height = await resolve(parseBlockParam(param), r);
    return height === null ? undefined : store.blockByNumber(height);
  }

  const noParams = (method: string) => (params: readonly unknown[]) => expectCount(method, params, 0);

  return {
    eth_chainId(params) {
      noParams('eth_chainId')(params);
      return options.chainId;
    },
    net_version(params) {
      noParams('net_version')(params);
      return options.netVersion;
    },
    eth_blockNumber(params) {
      noParams('eth_blockNumber')(params);
      return toQuantity(newestServed(keeper.range()));
    },
    eth_syncing(params) {
      noParams('eth_syncing')(params);
      const { synced } = keeper.range();
      if (status.target === undefined || synced >= status.target) return false;
      return {
        startingBlock: toQuantity(Math.max(0, status.startingBlock)),
        currentBlock: toQuantity(Math.max(0, synced)),
        highestBlock: toQuantity(status.target),
      };
    },
    async eth_getBlockByNumber(params) {
      expectCount('eth_getBlockByNumber', params, 2);
      const full = parseBool(params[1], 'full transactions flag');
      const r = keeper.range();
      const height = await resolve(parseBlockParam(params[0]), r);
      return blockJson(height === null ? undefined : await store.blockByNumber(height), full);
    },
    async eth_getBlockByHash(params) {
      expectCount('eth_getBlockByHash', params, 2);
      const full = parseBool(params[1], 'full transactions flag');
      return blockJson(await store.blockByHash(parseHash(params[0], 'block hash'), servedRange(keeper.range())), full);
    },
    async eth_getBlockTransactionCountByNumber(params) {
      expectCount('eth_getBlockTransactionCountByNumber', params, 1);
      const block = await blockByParam(params[0]);
      return block === undefined ? null : toQuantity(block.txCount);
    },
    async eth_getBlockTransactionCountByHash(params) {
      expectCount('eth_getBlockTransactionCountByHash', params, 1);
      const block = await store.blockByHash(parseHash(params[0], 'block hash'), servedRange(keeper.range()));
      return block === undefined ? null : toQuantity(block.txCount);
    },
    async eth_getBlockReceipts(params) {
      expectCount('eth_getBlockReceipts', params, 1);
      const block = await blockByParam(params[0]);
      if (block === undefined) return NULL;
      return new RawJson(`[${(await store.receipts(block.number)).join(',')}]`);
    },
    async eth_getTransactionByHash(params) {
      expectCount('eth_getTransactionByHash', params, 1);
      const tx = await store.transactionByHash(parseHash(params[0], 'transaction hash'), servedRange(keeper.range()));
      return tx === undefined ? NULL : new RawJson(tx);
    },
    async eth_getTransactionByBlockNumberAndIndex(params) {
      expectCount('eth_getTransactionByBlockNumberAndIndex', params, 2);
      const index = parseQuantity(params[1], 'transaction index');
      const height = await resolve(parseBlockParam(params[0]), keeper.range());
      const tx = height === null ? undefined : await store.transactionAt(height, index);
      return tx === undefined ? NULL : new RawJson(tx);
    },
    async eth_getTransactionByBlockHashAndIndex(params) {
      expectCount('eth_getTransactionByBlockHashAndIndex', params, 2);
      const index = parseQuantity(params[1], 'transaction index');
      const block = await store.blockByHash(parseHash(params[0], 'block hash'), servedRange(keeper.range()));
      const tx = block === undefined ? undefined : await store.transactionAt(block.number, index);
      return tx === undefined ? NULL : new RawJson(tx);
    },
    async eth_getTransactionReceipt(params) {
      expectCount('eth_getTransactionReceipt', params, 1);
      const receipt = await store.receiptByHash(parseHash(params[0], 'transaction hash'), servedRange(keeper.range()));
      return receipt === undefined ? NULL : new RawJson(receipt);
    },
    eth_getLogs: (params) => getLogs({ store, keeper, heights, options }, params),

    idx_dataInfo: dataInfo(keeper),
    ...Object.fromEntries(
      ADMIN_METHODS.map((m) => [m, () => Promise.reject(new JsonRpcServerError(METHOD_NOT_FOUND, adminElsewhere(m, options.adminEndpoint)))]),
    ),
  };
}

function adminElsewhere(method: string, on: boolean): string {
  return on
    ? `${method} is not served on this endpoint: call it on idx-shard's admin endpoint (--admin-port, on 127.0.0.1 unless --admin-host says otherwise) with a JWT signed with the --admin-secret-file secret`
    : `${method} is not served on this endpoint: admin methods are served only on idx-shard's admin endpoint, which runs when idx-shard is started with --admin-secret-file <file> (or set the range with -shardstart/-shardend at startup)`;
}

function dataInfo(keeper: ShardKeeper): JsonRpcMethod {
  return (params) => {
    expectCount('idx_dataInfo', params, 0);
    const r = keeper.range();
    return { desiredChainDataStart: r.tail, desiredChainDataEnd: r.head };
  };
}

/** The admin endpoint's methods: the range changes, and `idx_dataInfo` to read the range back. */
export function createShardAdminMethods(options: { admin: ShardAdmin; keeper: ShardKeeper }): Record<string, JsonRpcMethod> {
  const { admin } = options;
  return {
    idx_dataInfo: dataInfo(options.keeper),
    async admin_setEndHeight(params) {
      expectCount('admin_setEndHeight', params, 1);
      const head = params[0] === null ? null : parseQuantity(params[0], 'end height (a block number or null)');
      await adminCall(() => admin.setEnd(head));
      return true;
    },
    async admin_setStartHeight(params) {
      expectCount('admin_setStartHeight', params, 1);
      if (params[0] === null) throw invalidParams('admin_setStartHeight needs a block number; the tail cannot be unset');
      const tail = parseQuantity(params[0], 'start height (a block number)');
      await adminCall(() => admin.setStart(tail));
      return true;
    },
  };
}

async function adminCall(fn: () => Promise<void>): Promise<void> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ShardRangeRefused) throw new JsonRpcServerError(SERVER_ERROR, err.message);
    throw err;
  }
}

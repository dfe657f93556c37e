import type { ShardStore, StoredBlock } from '../../infra/postgres/shard-store.ts';
import type { RpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { hexToNumber, toQuantity } from '../../infra/rpc/hex-quantity.ts';
import { invalidParams, JsonRpcServerError, METHOD_NOT_FOUND, RawJson, type JsonRpcMethod } from '../../infra/rpc/json-rpc-server.ts';
import { ShardRangeRefused, type ShardAdmin } from './shard-admin.ts';
import type { ShardKeeper } from './shard-keeper.ts';
import { expectCount, parseBlockParam, parseBool, parseHash, parseLogFilter, parseQuantity, type BlockParam, type BlockTag } from './shard-params.ts';
import { answerHeight, newestServed, type ShardRange } from './shard-range.ts';
import type { SyncStatus } from './shard-sync.ts';

/** The error of a request outside `[tail, head]`. */
export const PRUNED_HISTORY = 4444;
/** geth's code for "unknown block" and other request failures */
const SERVER_ERROR = -32000;
/** Infura's and geth's code for a query the server limits (eth_getLogs range and result count) */
const LIMIT_EXCEEDED = -32005;

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
  const upstreamTags = new Map<string, { at: number; height: Promise<number | null> }>();

  const pruned = (requested: number, answer: { kind: 'below-tail'; earliest: number } | { kind: 'above-head'; latest: number }) =>
    new JsonRpcServerError(
      PRUNED_HISTORY,
      answer.kind === 'below-tail'
        ? `pruned history unavailable: requested ${requested}, earliest available ${answer.earliest}`
        : `pruned history unavailable: requested ${requested}, latest available ${answer.latest}`,
    );

  /** The upstream's `safe`/`finalized` height, asked at most once a second. */
  function upstreamTag(tag: 'safe' | 'finalized'): Promise<number | null> {
    const cached = upstreamTags.get(tag);
    if (cached !== undefined && now() - cached.at < 1000) return cached.height;
    const height = upstream
      .request<{ number?: unknown } | null>('eth_getBlockByNumber', [tag, false])
      .then((b) => (b === null ? null : hexToNumber(b.number, `${tag} block number`)));
    upstreamTags.set(tag, { at: now(), height });
    height.catch(() => upstreamTags.delete(tag));
    return height;
  }

  /** The height a block param stands for, or null when the shard has no such block (yet); 4444 outside the range. */
  async function resolve(param: BlockParam, r: ShardRange): Promise<number | null> {
    if ('number' in param) {
      const answer = answerHeight(r, param.number);
      if (answer.kind === 'served') return answer.height;
      if (answer.kind === 'unknown') return null;
      throw pruned(param.number, answer);
    }
    return resolveTag(param.tag, r);
  }

  async function resolveTag(tag: BlockTag, r: ShardRange): Promise<number | null> {
    switch (tag) {
      case 'earliest':
        return answerHeight(r, r.tail).kind === 'served' ? r.tail : null;
      case 'latest':
      case 'pending':
        return newestServed(r);
      case 'safe':
      case 'finalized': {
        const height = await upstreamTag(tag);
        if (height === null) return null;
        const clamped = Math.min(height, newestServed(r));
        // below the tail: this shard does not have it, and answering the tail would claim a finality the chain has not reached
        return answerHeight(r, clamped).kind === 'served' ? clamped : null;
      }
    }
  }

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

  const served = (r: ShardRange) => ({ from: r.tail, to: newestServed(r) });

  async function blockByParam(param: unknown): Promise<StoredBlock | undefined> {
    const r = keeper.range();
    // EIP-1898-style hash where a block is named
    if (typeof param === 'string' && param.length === 66) return store.blockByHash(parseHash(param, 'block hash'), served(r));
    const height = await resolve(parseBlockParam(param), r);
    return height === null ? undefined : store.blockByNumber(height);
  }

  async function getLogs(params: readonly unknown[]): Promise<RawJson> {
    expectCount('eth_getLogs', params, 1);
    const filter = parseLogFilter(params[0]);
    const r = keeper.range();
    let from: number;
    let to: number;
    if (filter.blockHash !== undefined) {
      const block = await store.blockByHash(filter.blockHash, served(r));
      if (block === undefined) throw new JsonRpcServerError(SERVER_ERROR, 'unknown block');
      from = to = block.number;
    } else {
      const newest = newestServed(r);
      from = await logBound(filter.fromBlock, r, newest);
      to = await logBound(filter.toBlock, r, newest);
      if (r.head !== null && to > r.head) throw pruned(to, { kind: 'above-head', latest: newest });
      if (from < r.tail && !(from === 0 && to === 0)) throw pruned(from, { kind: 'below-tail', earliest: r.tail });
      to = Math.min(to, newest);
      if (from > to) return new RawJson('[]');
      const span = to - from + 1;
      if (span > options.maxLogRange) {
        throw new JsonRpcServerError(
          LIMIT_EXCEEDED,
          `exceed maximum block range: ${options.maxLogRange} blocks per eth_getLogs, asked for ${span}; try with this block range [${toQuantity(from)}, ${toQuantity(from + options.maxLogRange - 1)}]`,
        );
      }
    }
    const limit = options.maxLogResults;
    const logs = await store.logs({
      fromBlock: from,
      toBlock: to,
      ...(filter.addresses && { addresses: filter.addresses }),
      topics: filter.topics,
      limit: limit + 1,
    });
    if (logs.length > limit) {
      const suggested = Math.max(from, logs[limit]!.blockNumber - 1);
      throw new JsonRpcServerError(
        LIMIT_EXCEEDED,
        `query returned more than ${limit} results. Try with this block range [${toQuantity(from)}, ${toQuantity(suggested)}].`,
        {
          from: toQuantity(from),
          to: toQuantity(suggested),
        },
      );
    }
    // as many bytes as one answer may hold: refused like the result count, with the range that fits
    let bytes = 2;
    for (const [i, l] of logs.entries()) {
      bytes += Buffer.byteLength(l.log) + 1;
      if (bytes <= options.maxLogBytes) continue;
      const suggested = Math.max(from, l.blockNumber - 1);
      throw new JsonRpcServerError(
        LIMIT_EXCEEDED,
        `query returned more than ${options.maxLogBytes} bytes of logs (${i} logs fit). Try with this block range [${toQuantity(from)}, ${toQuantity(suggested)}].`,
        {
          from: toQuantity(from),
          to: toQuantity(suggested),
        },
      );
    }
    return new RawJson(`[${logs.map((l) => l.log).join(',')}]`);
  }

  /** A getLogs bound: tags as for blocks; a bound the shard has not synced yet stays as given (the range is clamped after). */
  async function logBound(param: BlockParam, r: ShardRange, newest: number): Promise<number> {
    if ('number' in param) return param.number;
    if (param.tag === 'safe' || param.tag === 'finalized') {
      const height = await upstreamTag(param.tag);
      if (height === null) return newest;
      return Math.min(height, newest);
    }
    if (param.tag === 'earliest') return r.tail;
    return newest;
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
      return blockJson(await store.blockByHash(parseHash(params[0], 'block hash'), served(keeper.range())), full);
    },
    async eth_getBlockTransactionCountByNumber(params) {
      expectCount('eth_getBlockTransactionCountByNumber', params, 1);
      const block = await blockByParam(params[0]);
      return block === undefined ? null : toQuantity(block.txCount);
    },
    async eth_getBlockTransactionCountByHash(params) {
      expectCount('eth_getBlockTransactionCountByHash', params, 1);
      const block = await store.blockByHash(parseHash(params[0], 'block hash'), served(keeper.range()));
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
      const tx = await store.transactionByHash(parseHash(params[0], 'transaction hash'), served(keeper.range()));
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
      const block = await store.blockByHash(parseHash(params[0], 'block hash'), served(keeper.range()));
      const tx = block === undefined ? undefined : await store.transactionAt(block.number, index);
      return tx === undefined ? NULL : new RawJson(tx);
    },
    async eth_getTransactionReceipt(params) {
      expectCount('eth_getTransactionReceipt', params, 1);
      const receipt = await store.receiptByHash(parseHash(params[0], 'transaction hash'), served(keeper.range()));
      return receipt === undefined ? NULL : new RawJson(receipt);
    },
    eth_getLogs: getLogs,

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

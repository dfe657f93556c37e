import { parentPort, workerData } from 'node:worker_threads';
import { IdxError } from '../../../../domain/errors.ts';
import { createEthereumSource } from '../../../../infra/chains/ethereum/create-ethereum-source.ts';
import { createRpcClient } from '../../../../infra/rpc/create-rpc-client.ts';
import { fetchRange } from './fetch-range.ts';
import { ETHEREUM_CACHE_RULES } from '../../../../infra/chains/ethereum/rpc-cache-rules.ts';
import { cachedClient } from '../../../../infra/rpc/cache/cached-client.ts';
import { openRpcCacheStore } from '../../../../infra/rpc/cache/rpc-cache-store.ts';
import type { FetchRequest, FetchResponse, FetchWorkerData } from './worker-fetcher.ts';

// A `--workers` thread: its own RPC client, fetching the ranges the main thread sends it.
const data = workerData as FetchWorkerData;
let finalized = -1;
const settings = data.rpcCache;
// the thread's own view of the RPC cache: the answers final when the range being fetched was asked for are kept
const store = settings === undefined ? undefined : await openRpcCacheStore(settings).catch(() => undefined);
const client =
  store === undefined
    ? createRpcClient(data.rpc)
    : cachedClient(createRpcClient(data.rpc), { rules: ETHEREUM_CACHE_RULES, store: () => store, finalized: () => finalized });
const source = createEthereumSource(client);
parentPort!.on('message', async (req: FetchRequest) => {
  let res: FetchResponse;
  finalized = Math.max(finalized, req.finalized);
  try {
    res = { id: req.id, fetched: await fetchRange(source, req.plan, req.range, data.fetch) };
  } catch (err) {
    const e = err as Error;
    res = {
      id: req.id,
      error: { message: e.message, code: err instanceof IdxError ? err.code : 'FETCH_WORKER_FAILED', retryable: err instanceof IdxError && err.retryable },
    };
  }
  parentPort!.postMessage(res);
});

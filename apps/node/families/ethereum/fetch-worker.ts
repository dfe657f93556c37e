import { parentPort, workerData } from 'node:worker_threads';
import { IdxError } from '../../../../domain/errors.ts';
import { createEthereumSource } from '../../../../infra/chains/ethereum/create-ethereum-source.ts';
import { createRpcClient } from '../../../../infra/rpc/create-rpc-client.ts';
import { fetchRange } from './fetch-range.ts';
import type { FetchRequest, FetchResponse, FetchWorkerData } from './worker-fetcher.ts';

// A `--workers` thread: its own RPC client, fetching the ranges the main thread sends it.
const data = workerData as FetchWorkerData;
const client = createRpcClient(data.rpc);
const source = createEthereumSource(client);
parentPort!.on('message', async (req: FetchRequest) => {
  let res: FetchResponse;
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

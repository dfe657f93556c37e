import type { HeightRange } from '../../../../domain/blocks/next-range.ts';
import { IdxError, type ErrorCode } from '../../../../domain/errors.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import type { RpcClientOptions } from '../../../../infra/rpc/create-rpc-client.ts';
import { siblingModule, startModuleWorker } from '../../../../infra/threads/start-module-worker.ts';
import { workerFor } from '../../../../domain/blocks/next-range.ts';
import type { FetchedRange, FetchRangeOptions } from './fetch-range.ts';
import type { EthereumRangeFetcher } from './local-fetcher.ts';
import type { RpcCacheLayer, RpcCacheWorkerSettings } from '../rpc-cache-layer.ts';

export interface FetchRequest {
  id: number;
  plan: FetchPlan;
  range: HeightRange;
  /** the highest height final when the range was asked for: what of it the thread's RPC cache may keep */
  finalized: number;
}

export type FetchResponse = { id: number; fetched: FetchedRange } | { id: number; error: { message: string; code: ErrorCode; retryable: boolean } };

/**
 * `--workers N`: N threads, each with its own RPC client, fetch consecutive ranges in turn (range i
 * goes to worker i mod N, as SubQuery's workers do); the loop still processes them in order.
 * Results cross as structured clones (Maps and bigints survive).
 */
/** What a fetch thread is started with. */
export interface FetchWorkerData {
  rpc: Pick<RpcClientOptions, 'endpoints' | 'timeoutMs' | 'retries'>;
  fetch: FetchRangeOptions;
  /** the RPC cache the thread opens too (each thread its own index over the same files) */
  rpcCache?: RpcCacheWorkerSettings;
}

export function createWorkerFetcher(
  workers: number,
  rpc: FetchWorkerData['rpc'],
  fetch: FetchRangeOptions = {},
  rpcCache?: Pick<RpcCacheLayer, 'worker' | 'finalized'>,
): EthereumRangeFetcher {
  const cache = rpcCache?.worker();
  const worker = siblingModule('fetch-worker', import.meta.url);
  const pending = new Map<number, { worker: number; resolve: (f: FetchedRange) => void; reject: (e: Error) => void }>();
  const failed = new Map<number, IdxError>();
  let nextId = 0;
  const threads = Array.from({ length: workers }, (_, n) => {
    const w = startModuleWorker(worker, { rpc, fetch, ...(cache && { rpcCache: cache }) } satisfies FetchWorkerData);
    w.on('message', (res: FetchResponse) => {
      const p = pending.get(res.id);
      if (p === undefined) return;
      pending.delete(res.id);
      if ('fetched' in res) p.resolve(res.fetched);
      else p.reject(new IdxError(res.error.code, res.error.message, { retryable: res.error.retryable }));
    });
    w.on('error', (err) => {
      const error = new IdxError('FETCH_WORKER_FAILED', `fetch worker ${n + 1} failed: ${err.message}`, { cause: err });
      failed.set(n, error);
      for (const [id, p] of pending) {
        if (p.worker !== n) continue;
        pending.delete(id);
        p.reject(error);
      }
    });
    return w;
  });
  return {
    parallelism: workers,
    fetch(plan, range, index) {
      const id = nextId++;
      const worker = workerFor(index, workers);
      const dead = failed.get(worker);
      if (dead !== undefined) return Promise.reject(dead);
      return new Promise<FetchedRange>((resolve, reject) => {
        pending.set(id, { worker, resolve, reject });
        threads[worker]!.postMessage({ id, plan, range, finalized: rpcCache?.finalized() ?? -1 } satisfies FetchRequest);
      });
    },
    async close() {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}

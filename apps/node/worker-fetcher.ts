import { extname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { HeightRange } from '../../domain/blocks/next-range.ts';
import { IdxError, type ErrorCode } from '../../domain/errors.ts';
import type { FetchPlan } from '../../domain/chains/ethereum/compile-data-sources.ts';
import type { RpcClientOptions } from '../../infra/rpc/create-rpc-client.ts';
import { workerFor } from '../../domain/blocks/next-range.ts';
import type { FetchedRange, FetchRangeOptions } from './fetch-range.ts';
import type { RangeFetcher } from './range-fetcher.ts';

export interface FetchRequest {
  id: number;
  plan: FetchPlan;
  range: HeightRange;
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
}

export function createWorkerFetcher(workers: number, rpc: FetchWorkerData['rpc'], fetch: FetchRangeOptions = {}): RangeFetcher {
  const ext = extname(fileURLToPath(import.meta.url));
  const worker = new URL(`./fetch-worker${ext}`, import.meta.url).href;
  // From the TypeScript sources each thread registers tsx itself: a loader given by flag does not reach threads.
  const boot =
    ext === '.ts'
      ? `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((m) => { m.register(); return import(${JSON.stringify(worker)}); });`
      : `import(${JSON.stringify(worker)});`;
  // Threads take the process's flags except those only a process may have.
  const execArgv = process.execArgv.filter((a) => a !== '--no-node-snapshot');
  const pending = new Map<number, { worker: number; resolve: (f: FetchedRange) => void; reject: (e: Error) => void }>();
  const failed = new Map<number, IdxError>();
  let nextId = 0;
  const threads = Array.from({ length: workers }, (_, n) => {
    const w = new Worker(boot, { eval: true, workerData: { rpc, fetch } satisfies FetchWorkerData, execArgv });
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
        threads[worker]!.postMessage({ id, plan, range } satisfies FetchRequest);
      });
    },
    async close() {
      await Promise.all(threads.map((t) => t.terminate()));
    },
  };
}

import { IdxError } from '../../domain/errors.ts';
import type { RangedMethods } from './endpoint-ranges.ts';
import type { Endpoint } from './endpoint-pool.ts';
import { redactUrl } from './redact-url.ts';

export interface RpcClientOptions {
  endpoints: readonly Endpoint[];
  /** per HTTP request, including reading the body */
  timeoutMs?: number;
  maxBatchSize?: number;
  /**
   * rounds over all endpoints after the first one; failing over to the next endpoint is immediate.
   * 0 when the caller retries itself (the indexing loop does: one layer waits, not two).
   */
  retries?: number;
  /** first backoff between rounds; doubles each round, with jitter, up to maxBackoffMs */
  backoffMs?: number;
  maxBackoffMs?: number;
  /** how long a failed endpoint is avoided while others are healthy; doubles per consecutive failure */
  cooldownMs?: number;
  /** batch requests of one `batch()` call in flight at once */
  concurrency?: number;
  fetch?: typeof globalThis.fetch;
  /** in [0, 1), for jitter */
  random?: () => number;
  /**
   * With several endpoints, some of them idx-shard nodes: ask each its range (`idx_dataInfo`; one
   * that does not know the method is a full node) and send every call to an endpoint holding the
   * blocks it reads (the family's methods say which: infra/chains/<family>/ranged-methods.ts),
   * spans cut where the shards meet. Ranges are asked again every `rangeRefreshMs` (default 30 s)
   * and after a shard answers 4444 (outside its range).
   */
  routeByRange?: RangedMethods;
  rangeRefreshMs?: number;
}

/** What a client is made with, defaults filled in. */
export interface RpcClientSettings {
  timeoutMs: number;
  maxBatchSize: number;
  retries: number;
  backoffMs: number;
  maxBackoffMs: number;
  cooldownMs: number;
  maxCooldownMs: number;
  concurrency: number;
  /** the family's methods when calls are routed by the endpoints' ranges (several endpoints only) */
  routing: RangedMethods | undefined;
  rangeRefreshMs: number;
}

/** The options checked (RPC_NO_ENDPOINTS, RPC_BAD_ENDPOINT) and their defaults filled in. */
export function rpcClientSettings(options: RpcClientOptions): RpcClientSettings {
  if (options.endpoints.length === 0)
    throw new IdxError('RPC_NO_ENDPOINTS', 'no RPC endpoint given: set network.endpoint in the manifest or pass --network-endpoint');
  for (const e of options.endpoints) {
    if (!/^https?:\/\//i.test(e.url))
      throw new IdxError('RPC_BAD_ENDPOINT', `RPC endpoint "${redactUrl(e.url)}" is not an http(s) URL (only HTTP endpoints are supported, not ws://)`);
  }
  return {
    timeoutMs: options.timeoutMs ?? 30_000,
    maxBatchSize: Math.max(1, options.maxBatchSize ?? 100),
    retries: options.retries ?? 3,
    backoffMs: options.backoffMs ?? 250,
    maxBackoffMs: options.maxBackoffMs ?? 10_000,
    cooldownMs: options.cooldownMs ?? 2_000,
    maxCooldownMs: 60_000,
    concurrency: Math.max(1, options.concurrency ?? 4),
    routing: options.endpoints.length > 1 ? options.routeByRange : undefined,
    rangeRefreshMs: options.rangeRefreshMs ?? 30_000,
  };
}

import { createEndpointPool, type PooledEndpoint } from './endpoint-pool.ts';
import { BatchTooLarge, createJsonRpcTransport, normaliseError, TransportFailure, type PostCalls, type RpcCall } from './json-rpc-transport.ts';
import { createFailoverSender } from './failover-sender.ts';
import { createRangeRouter } from './range-router.ts';
import { rpcClientSettings, type RpcClientOptions } from './rpc-client-settings.ts';
import { RpcError } from './rpc-error.ts';
import { settledCalls, type EndpointAnswer, type RpcSettled } from './rpc-settled.ts';

export type { RpcCall } from './json-rpc-transport.ts';
export type { RpcClientOptions } from './rpc-client-settings.ts';
export type { EndpointAnswer, RpcSettled } from './rpc-settled.ts';

export interface RpcClient {
  /** One call; throws `RpcError` when the endpoint answers with an error, `RpcUnreachableError` when none answers. */
  request<T = unknown>(method: string, params?: readonly unknown[]): Promise<T>;
  /**
   * Many calls in JSON-RPC batch requests of at most `maxBatchSize` each; results in call order.
   * Throws the first call's `RpcError` if any call failed.
   */
  batch<T = unknown>(calls: readonly RpcCall[]): Promise<T[]>;
  /** As `batch`, but each call's error is returned in its place instead of thrown. */
  batchSettled(calls: readonly RpcCall[]): Promise<RpcSettled[]>;
  /**
   * The same calls to every endpoint, one batch each, without failover: to check that they all
   * serve the same chain. Per endpoint, the settled calls or why it did not answer.
   */
  batchEach(calls: readonly RpcCall[]): Promise<EndpointAnswer[]>;
  /** the endpoint URLs, redacted for printing */
  readonly endpoints: readonly string[];
  /**
   * An answer of this endpoint (by its redacted URL) proved wrong: avoid it for a while, as after a
   * failure, so that asking again goes to another endpoint when there is one.
   */
  distrust(endpoint: string): void;
}

/**
 * A JSON-RPC client over HTTP endpoints: batching (json-rpc-transport.ts), failover and rounds of
 * retries (failover-sender.ts), and, among idx-shard nodes, calls routed by the blocks they hold
 * (range-router.ts).
 */
export function createRpcClient(options: RpcClientOptions): RpcClient {
  const settings = rpcClientSettings(options);
  const pool = createEndpointPool(options.endpoints, { cooldownMs: settings.cooldownMs, maxCooldownMs: settings.maxCooldownMs });
  const post = createJsonRpcTransport(options.fetch ?? globalThis.fetch, settings.timeoutMs);
  const batchEach = (calls: readonly RpcCall[]) => askEach(pool.endpoints, post, calls);
  // a shard that answers outside its range makes the router ask the ranges again
  const sender = createFailoverSender(pool, post, { settings, random: options.random ?? Math.random, onOutsideRange: () => router?.markStale() });
  const router =
    settings.routing === undefined ? undefined : createRangeRouter(pool, sender, { methods: settings.routing, refreshMs: settings.rangeRefreshMs, batchEach });
  const batchSettled = (calls: readonly RpcCall[]) => (router === undefined ? sender.sendAll(calls) : router.batchSettled(calls));

  return {
    endpoints: pool.endpoints.map((e) => e.label),
    distrust(label) {
      for (const e of pool.endpoints) if (e.label === label) pool.markFailed(e);
    },
    batchEach,
    ...settledCalls(batchSettled),
    batchSettled,
  };
}

/** The same calls to every endpoint, one batch each, without failover. */
async function askEach(endpoints: readonly PooledEndpoint[], post: PostCalls, calls: readonly RpcCall[]): Promise<EndpointAnswer[]> {
  return Promise.all(
    endpoints.map(async (endpoint): Promise<EndpointAnswer> => {
      try {
        const answers = await post(endpoint, calls);
        return {
          endpoint: endpoint.label,
          settled: calls.map((c, i): RpcSettled => {
            const a = answers.get(i);
            if (a === undefined)
              return { ok: false, error: new RpcError(c.method, { code: -32603, message: 'no response to this call' }, { endpoint: endpoint.label }) };
            if (a.error !== undefined && a.error !== null)
              return { ok: false, error: new RpcError(c.method, normaliseError(a.error), { endpoint: endpoint.label }) };
            return { ok: true, value: a.result ?? null, endpoint: endpoint.label };
          }),
        };
      } catch (err) {
        if (err instanceof TransportFailure || err instanceof BatchTooLarge) return { endpoint: endpoint.label, failure: err.message };
        throw err;
      }
    }),
  );
}

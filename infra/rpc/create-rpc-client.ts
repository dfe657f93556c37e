import { IdxError } from '../../domain/errors.ts';
import { createEndpointPool, type Endpoint, type PooledEndpoint } from './endpoint-pool.ts';
import { redactUrl } from './redact-url.ts';
import { parseDataInfo, type EndpointRange } from './endpoint-ranges.ts';
import { BatchTooLarge, createJsonRpcTransport, normaliseError, TransportFailure, type JsonRpcResponse, type RpcCall } from './json-rpc-transport.ts';
import { joinRouted, routeCalls } from './route-calls.ts';
import { RpcError, RpcUnreachableError, type EndpointFailure } from './rpc-error.ts';

export type { RpcCall } from './json-rpc-transport.ts';

/** `endpoint`: who answered (redacted), to name it when the answer later proves wrong */
export type RpcSettled = { ok: true; value: unknown; endpoint?: string } | { ok: false; error: RpcError };

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

export type EndpointAnswer = { endpoint: string; settled: RpcSettled[] } | { endpoint: string; failure: string };

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
   * blocks it reads, `eth_getLogs` spans cut where the shards meet. Ranges are asked again every
   * `rangeRefreshMs` (default 30 s) and after a shard answers 4444 (outside its range).
   */
  routeByRange?: boolean;
  rangeRefreshMs?: number;
}

export function createRpcClient(options: RpcClientOptions): RpcClient {
  if (options.endpoints.length === 0)
    throw new IdxError('RPC_NO_ENDPOINTS', 'no RPC endpoint given: set network.endpoint in the manifest or pass --network-endpoint');
  for (const e of options.endpoints) {
    if (!/^https?:\/\//i.test(e.url))
      throw new IdxError('RPC_BAD_ENDPOINT', `RPC endpoint "${redactUrl(e.url)}" is not an http(s) URL (only HTTP endpoints are supported, not ws://)`);
  }
  const timeoutMs = options.timeoutMs ?? 30_000;
  const maxBatchSize = Math.max(1, options.maxBatchSize ?? 100);
  const retries = options.retries ?? 3;
  const backoffMs = options.backoffMs ?? 250;
  const maxBackoffMs = options.maxBackoffMs ?? 10_000;
  const concurrency = Math.max(1, options.concurrency ?? 4);
  const doFetch = options.fetch ?? globalThis.fetch;
  const random = options.random ?? Math.random;
  const pool = createEndpointPool(options.endpoints, { cooldownMs: options.cooldownMs ?? 2_000, maxCooldownMs: 60_000 });
  const post = createJsonRpcTransport(doFetch, timeoutMs);
  /** lowered for good when an endpoint refuses our batch size */
  let batchLimit = maxBatchSize;
  const routing = options.routeByRange === true && pool.endpoints.length > 1;
  const rangeRefreshMs = options.rangeRefreshMs ?? 30_000;
  let ranges: { at: number; list: (EndpointRange | undefined)[] } | undefined;
  let rangesStale = false;
  let asking: Promise<(EndpointRange | undefined)[]> | undefined;

  /** One batch request's worth of calls, retried and failed over until every call has an answer. */
  async function sendChunk(calls: readonly RpcCall[], disallowed: ReadonlySet<PooledEndpoint> = NONE): Promise<RpcSettled[]> {
    const out: RpcSettled[] = new Array(calls.length);
    let pending = calls.map((_, i) => i);
    const failures = new Map<PooledEndpoint, TransportFailure>();
    const tried = new Set<PooledEndpoint>();
    let round = 0;
    let attempts = 0;
    while (pending.length > 0) {
      const endpoint = pool.pick(disallowed.size === 0 ? tried : new Set([...tried, ...disallowed]));
      if (endpoint === undefined) {
        const allPermanent = [...tried].every((e) => failures.get(e)?.permanent === true);
        if (round >= retries || allPermanent) break;
        const exp = Math.min(maxBackoffMs, backoffMs * 2 ** round);
        const asked = Math.min(maxBackoffMs, Math.max(0, ...[...tried].map((e) => failures.get(e)?.retryAfterMs ?? 0)));
        await sleep(Math.max(asked, exp / 2 + (random() * exp) / 2));
        round++;
        tried.clear();
        continue;
      }
      tried.add(endpoint);
      attempts++;
      let answers: Map<number, JsonRpcResponse>;
      try {
        answers = await post(
          endpoint,
          pending.map((i) => calls[i]!),
        );
      } catch (err) {
        if (err instanceof BatchTooLarge) {
          // halve until the endpoint takes it; later batches start at the size that worked
          const half = Math.ceil(pending.length / 2);
          batchLimit = Math.min(batchLimit, half);
          const parts = [pending.slice(0, half), pending.slice(half)];
          const settled = await Promise.all(
            parts.map((part) =>
              sendChunk(
                part.map((i) => calls[i]!),
                disallowed,
              ),
            ),
          );
          parts.forEach((part, p) => part.forEach((callIndex, k) => (out[callIndex] = settled[p]![k]!)));
          return out;
        }
        if (!(err instanceof TransportFailure)) throw err;
        pool.markFailed(endpoint);
        failures.set(endpoint, err);
        continue;
      }
      const still: number[] = [];
      let refused: RpcError | undefined;
      pending.forEach((callIndex, k) => {
        const answer = answers.get(k);
        const method = calls[callIndex]!.method;
        if (answer === undefined) still.push(callIndex);
        else if (answer.error !== undefined && answer.error !== null) {
          const error = new RpcError(method, normaliseError(answer.error), { endpoint: endpoint.label });
          // a shard whose range moved since we asked: batchSettled asks again and re-routes the call
          if (routing && error.rpcCode === PRUNED_HISTORY) rangesStale = true;
          if (error.retryable) {
            refused = error;
            still.push(callIndex);
          } else out[callIndex] = { ok: false, error };
        } else out[callIndex] = { ok: true, value: answer.result ?? null, endpoint: endpoint.label };
      });
      if (still.length === 0) pool.markOk(endpoint);
      else {
        pool.markFailed(endpoint);
        const why = refused ? `refused for now: ${refused.message}` : `answered without a response for ${still.length} of ${pending.length} calls`;
        failures.set(endpoint, new TransportFailure(why, false));
      }
      pending = still;
    }
    if (pending.length === 0) return out;
    const list: EndpointFailure[] = pool.endpoints.map((e) => ({
      endpoint: e.label,
      error: failures.get(e)?.message ?? 'not tried',
    }));
    const retryAfterMs = Math.max(0, ...[...failures.values()].map((f) => f.retryAfterMs));
    throw new RpcUnreachableError(describeCalls(pending.map((i) => calls[i]!)), attempts, list, retryAfterMs);
  }

  /** `calls` in batch requests of at most `batchLimit`, `concurrency` at a time, to endpoints not `disallowed`. */
  async function sendAll(calls: readonly RpcCall[], disallowed: ReadonlySet<PooledEndpoint> = NONE): Promise<RpcSettled[]> {
    const chunks: RpcCall[][] = [];
    for (let i = 0; i < calls.length; i += batchLimit) chunks.push(calls.slice(i, i + batchLimit));
    const results: RpcSettled[][] = new Array(chunks.length);
    let next = 0;
    const worker = async () => {
      while (next < chunks.length) {
        const i = next++;
        results[i] = await sendChunk(chunks[i]!, disallowed);
      }
    };
    await Promise.all(Array.from({ length: Math.min(concurrency, chunks.length) }, worker));
    return results.flat();
  }

  /** Each endpoint's range (undefined: a full node), asked when unknown, old, or known to have moved. */
  async function endpointRanges(): Promise<(EndpointRange | undefined)[]> {
    if (ranges !== undefined && !rangesStale && Date.now() - ranges.at < rangeRefreshMs) return ranges.list;
    asking ??= (async () => {
      rangesStale = false;
      const answers = await batchEach([{ method: 'idx_dataInfo', params: [] }]);
      const list = answers.map((a, i) => {
        // an endpoint that did not answer keeps what we knew of it
        if ('failure' in a) return ranges?.list[i];
        const [info] = a.settled;
        return info!.ok ? parseDataInfo(info!.value) : undefined;
      });
      ranges = { at: Date.now(), list };
      return list;
    })().finally(() => (asking = undefined));
    return asking;
  }

  async function batchSettled(calls: readonly RpcCall[]): Promise<RpcSettled[]> {
    if (!routing) return sendAll(calls);
    const settled = await sendRouted(calls);
    const outside = settled.flatMap((s, i) => (!s.ok && s.error.rpcCode === PRUNED_HISTORY ? [i] : []));
    if (outside.length === 0) return settled;
    // a shard's range moved since we asked: once more with the ranges as they are now
    const again = await sendRouted(outside.map((i) => calls[i]!));
    outside.forEach((callIndex, k) => (settled[callIndex] = again[k]!));
    return settled;
  }

  /** Each call to the endpoints holding its blocks (route-calls.ts), the parts with the same targets sent together. */
  async function sendRouted(calls: readonly RpcCall[]): Promise<RpcSettled[]> {
    const all = pool.endpoints;
    const { parts, partsOf, groups } = routeCalls(calls, await endpointRanges());
    const settled: RpcSettled[] = new Array(parts.length);
    await Promise.all(
      groups.map(async (members) => {
        const allowed = new Set(parts[members[0]!]!.targets.map((i) => all[i]!));
        const answers = await sendAll(
          members.map((i) => parts[i]!.call),
          new Set(all.filter((e) => !allowed.has(e))),
        );
        members.forEach((partIndex, k) => (settled[partIndex] = answers[k]!));
      }),
    );
    return joinRouted(partsOf, settled);
  }

  async function batchEach(calls: readonly RpcCall[]): Promise<EndpointAnswer[]> {
    return Promise.all(
      pool.endpoints.map(async (endpoint): Promise<EndpointAnswer> => {
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

  return {
    endpoints: pool.endpoints.map((e) => e.label),
    distrust(label) {
      for (const e of pool.endpoints) if (e.label === label) pool.markFailed(e);
    },
    batchEach,
    async request<T>(method: string, params: readonly unknown[] = []) {
      const [settled] = await batchSettled([{ method, params }]);
      if (!settled!.ok) throw settled!.error;
      return settled!.value as T;
    },
    async batch<T>(calls: readonly RpcCall[]) {
      const settled = await batchSettled(calls);
      return settled.map((s) => {
        if (!s.ok) throw s.error;
        return s.value as T;
      });
    },
    batchSettled,
  };
}

const NONE: ReadonlySet<PooledEndpoint> = new Set();
/** idx-shard's error for blocks outside its range */
const PRUNED_HISTORY = 4444;

function describeCalls(calls: readonly RpcCall[]): string {
  const methods = [...new Set(calls.map((c) => c.method))];
  if (calls.length === 1) return methods[0]!;
  return `a batch of ${calls.length} calls (${methods.join(', ')})`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

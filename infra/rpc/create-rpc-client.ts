import { IdxError } from '../../domain/errors.ts';
import { createEndpointPool, type Endpoint, type PooledEndpoint } from './endpoint-pool.ts';
import { redactUrl } from './redact-url.ts';
import { blockNeed, eligible, parseDataInfo, splitHeights, type EndpointRange } from './endpoint-ranges.ts';
import { RpcError, RpcUnreachableError, isRateLimited, type EndpointFailure, type JsonRpcErrorObject } from './rpc-error.ts';

export interface RpcCall {
  method: string;
  params?: readonly unknown[];
}

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

interface JsonRpcResponse {
  id: number | string | null;
  result?: unknown;
  error?: JsonRpcErrorObject;
}

/** The endpoint did not give a usable answer; `permanent` ones (HTTP 401, 404…) are not worth waiting for. */
class TransportFailure extends Error {
  constructor(
    message: string,
    readonly permanent: boolean,
    /** how long the endpoint asked us to wait (HTTP 429/503 `Retry-After`) */
    readonly retryAfterMs = 0,
  ) {
    super(message);
  }
}

/** The endpoint limits batch sizes below ours (HTTP 413, or a whole-batch error about the batch). */
class BatchTooLarge extends Error {}

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
  let nextId = 1;
  /** lowered for good when an endpoint refuses our batch size */
  let batchLimit = maxBatchSize;
  const routing = options.routeByRange === true && pool.endpoints.length > 1;
  const rangeRefreshMs = options.rangeRefreshMs ?? 30_000;
  let ranges: { at: number; list: (EndpointRange | undefined)[] } | undefined;
  let rangesStale = false;
  let asking: Promise<(EndpointRange | undefined)[]> | undefined;

  async function post(endpoint: PooledEndpoint, calls: readonly RpcCall[]): Promise<Map<number, JsonRpcResponse>> {
    const requests = calls.map((c) => ({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params ?? [] }));
    let text: string;
    let status: number;
    let statusText: string;
    let retryAfter: string | null;
    try {
      const res = await doFetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...endpoint.headers },
        // a lone call goes as a plain object: some providers refuse batches altogether
        body: JSON.stringify(requests.length === 1 ? requests[0] : requests),
        signal: AbortSignal.timeout(timeoutMs),
      });
      status = res.status;
      statusText = res.statusText;
      retryAfter = res.headers.get('retry-after');
      text = await res.text();
    } catch (err) {
      // fetch's messages quote the URL whole (key and all): only the endpoint's label may be printed
      throw new TransportFailure(endpoint.redact(describeFetchError(err, timeoutMs)), false);
    }
    if (status === 413 && requests.length > 1) throw new BatchTooLarge(`HTTP 413 for a batch of ${requests.length}`);
    if (status < 200 || status > 299) {
      const body = endpoint.redact(text.trim().replace(/\s+/g, ' ').slice(0, 200));
      const retryable = status === 408 || status === 429 || status >= 500;
      const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : 0;
      throw new TransportFailure(`HTTP ${status}${statusText ? ` ${statusText}` : ''}${body ? `: ${body}` : ''}`, !retryable, seconds * 1000);
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch {
      throw new TransportFailure(`answered with something that is not JSON: ${endpoint.redact(text.trim().slice(0, 120))}`, false);
    }
    const byId = new Map<number, JsonRpcResponse>();
    const items = Array.isArray(parsed) ? parsed : [parsed];
    for (const item of items) {
      if (item === null || typeof item !== 'object') throw new TransportFailure('answered with a malformed JSON-RPC response', false);
      const r = item as JsonRpcResponse;
      // an error text may echo the key ("invalid API key …"): it is printed, so it is redacted here
      if (r.error !== undefined && r.error !== null) r.error = redactError(endpoint, r.error);
      if (r.id === null && r.error && !Array.isArray(parsed)) {
        // the whole request refused (batch too large, rate limited…): it applies to every call
        if (isRateLimited(r.error)) throw new TransportFailure(`rate limited: ${r.error.message}`, false);
        if (requests.length > 1 && /batch/i.test(r.error.message)) throw new BatchTooLarge(r.error.message);
        for (const q of requests) byId.set(q.id, { id: q.id, error: r.error });
        continue;
      }
      // some proxies echo ids as strings
      const id = typeof r.id === 'string' && /^\d+$/.test(r.id) ? Number(r.id) : r.id;
      if (typeof id === 'number') byId.set(id, r);
    }
    return new Map(requests.map((q, i) => [i, byId.get(q.id)!] as const).filter(([, r]) => r !== undefined));
  }

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

  /** Each call to the endpoints holding its blocks, eth_getLogs spans cut where shards meet. */
  async function sendRouted(calls: readonly RpcCall[]): Promise<RpcSettled[]> {
    const list = await endpointRanges();
    const all = pool.endpoints;
    const parts: { call: RpcCall; targets: number[] }[] = [];
    const partsOf: number[][] = calls.map((call) => {
      const need = blockNeed(call);
      let targets = eligible(list, need);
      if (targets.length === 0 && need.kind === 'heights' && call.method === 'eth_getLogs') {
        const pieces = splitHeights(list, need.from, need.to);
        if (pieces !== undefined) {
          const filter = call.params![0] as Record<string, unknown>;
          return pieces.map((p) => {
            const piece = {
              ...filter,
              fromBlock: `0x${p.from.toString(16)}`,
              toBlock: p.to === Number.POSITIVE_INFINITY ? (filter.toBlock ?? 'latest') : `0x${p.to.toString(16)}`,
            };
            parts.push({ call: { method: call.method, params: [piece] }, targets: eligible(list, { kind: 'heights', from: p.from, to: p.to }) });
            return parts.length - 1;
          });
        }
      }
      // nobody holds it: let every endpoint try, and the answer say why
      if (targets.length === 0) targets = all.map((_, i) => i);
      parts.push({ call, targets });
      return [parts.length - 1];
    });
    const groups = new Map<string, number[]>();
    parts.forEach((p, i) => {
      const key = p.targets.join(',');
      groups.set(key, [...(groups.get(key) ?? []), i]);
    });
    const settled: RpcSettled[] = new Array(parts.length);
    await Promise.all(
      [...groups.values()].map(async (members) => {
        const allowed = new Set(parts[members[0]!]!.targets.map((i) => all[i]!));
        const answers = await sendAll(
          members.map((i) => parts[i]!.call),
          new Set(all.filter((e) => !allowed.has(e))),
        );
        members.forEach((partIndex, k) => (settled[partIndex] = answers[k]!));
      }),
    );
    return partsOf.map((indexes) => {
      if (indexes.length === 1) return settled[indexes[0]!]!;
      const failed = indexes.map((i) => settled[i]!).find((s) => !s.ok);
      if (failed !== undefined) return failed;
      const pieces = indexes.map((i) => settled[i] as { value: unknown[]; endpoint?: string });
      const endpoints = [...new Set(pieces.map((p) => p.endpoint).filter((e) => e !== undefined))];
      return { ok: true, value: pieces.flatMap((p) => p.value), endpoint: endpoints.join(', ') };
    });
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

/** The endpoint's error with its URL and secrets masked in the message. */
function redactError(endpoint: PooledEndpoint, error: unknown): JsonRpcErrorObject {
  const e = normaliseError(error);
  return { ...e, message: endpoint.redact(e.message) };
}

function normaliseError(error: unknown): JsonRpcErrorObject {
  if (error !== null && typeof error === 'object') {
    const e = error as Partial<JsonRpcErrorObject>;
    return { code: typeof e.code === 'number' ? e.code : -32603, message: typeof e.message === 'string' ? e.message : JSON.stringify(error), data: e.data };
  }
  return { code: -32603, message: String(error) };
}

function describeFetchError(err: unknown, timeoutMs: number): string {
  if (err instanceof Error && (err.name === 'TimeoutError' || err.name === 'AbortError')) return `timed out after ${timeoutMs} ms`;
  // undici hides the useful part (ECONNREFUSED, ENOTFOUND…) in `cause`
  const cause = err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  if (cause?.message) return cause.message;
  if (cause?.code) return cause.code;
  return err instanceof Error ? err.message : String(err);
}

function describeCalls(calls: readonly RpcCall[]): string {
  const methods = [...new Set(calls.map((c) => c.method))];
  if (calls.length === 1) return methods[0]!;
  return `a batch of ${calls.length} calls (${methods.join(', ')})`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

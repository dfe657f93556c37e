import type { PooledEndpoint } from './endpoint-pool.ts';
import { isRateLimited, type JsonRpcErrorObject } from './rpc-error.ts';

/** One JSON-RPC call as the client sends it. */
export interface RpcCall {
  method: string;
  params?: readonly unknown[];
}

export interface JsonRpcResponse {
  id: number | string | null;
  result?: unknown;
  error?: JsonRpcErrorObject;
}

/** The endpoint did not give a usable answer; `permanent` ones (HTTP 401, 404…) are not worth waiting for. */
export class TransportFailure extends Error {
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
export class BatchTooLarge extends Error {}

/** An HTTP answer as `readAnswer` needs it. */
export interface HttpAnswer {
  status: number;
  statusText: string;
  retryAfter: string | null;
  text: string;
}

/** Posts calls to one endpoint; the answers by the call's index in `calls` (a call with no answer is absent). */
export type PostCalls = (endpoint: PooledEndpoint, calls: readonly RpcCall[]) => Promise<Map<number, JsonRpcResponse>>;

/** JSON-RPC over HTTP POST: a batch per post (a lone call as a plain object), ids unique per transport. */
export function createJsonRpcTransport(doFetch: typeof globalThis.fetch, timeoutMs: number): PostCalls {
  let nextId = 1;
  return async (endpoint, calls) => {
    const requests = calls.map((c) => ({ jsonrpc: '2.0', id: nextId++, method: c.method, params: c.params ?? [] }));
    let answer: HttpAnswer;
    try {
      const res = await doFetch(endpoint.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...endpoint.headers },
        // a lone call goes as a plain object: some providers refuse batches altogether
        body: JSON.stringify(requests.length === 1 ? requests[0] : requests),
        signal: AbortSignal.timeout(timeoutMs),
      });
      answer = { status: res.status, statusText: res.statusText, retryAfter: res.headers.get('retry-after'), text: await res.text() };
    } catch (err) {
      // fetch's messages quote the URL whole (key and all): only the endpoint's label may be printed
      throw new TransportFailure(endpoint.redact(describeFetchError(err, timeoutMs)), false);
    }
    return readAnswer((text) => endpoint.redact(text), requests, answer);
  };
}

/**
 * The responses of one HTTP answer by the index of the request they answer; throws TransportFailure
 * when the answer is not usable, BatchTooLarge when the endpoint refuses the batch's size. Errors
 * are redacted (a message may echo the endpoint's key).
 */
export function readAnswer(redact: (text: string) => string, requests: readonly { id: number }[], answer: HttpAnswer): Map<number, JsonRpcResponse> {
  const { status, statusText, retryAfter, text } = answer;
  if (status === 413 && requests.length > 1) throw new BatchTooLarge(`HTTP 413 for a batch of ${requests.length}`);
  if (status < 200 || status > 299) {
    const body = redact(text.trim().replace(/\s+/g, ' ').slice(0, 200));
    const retryable = status === 408 || status === 429 || status >= 500;
    const seconds = retryAfter !== null && /^\d+$/.test(retryAfter.trim()) ? Number(retryAfter) : 0;
    throw new TransportFailure(`HTTP ${status}${statusText ? ` ${statusText}` : ''}${body ? `: ${body}` : ''}`, !retryable, seconds * 1000);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new TransportFailure(`answered with something that is not JSON: ${redact(text.trim().slice(0, 120))}`, false);
  }
  const byId = new Map<number, JsonRpcResponse>();
  const items = Array.isArray(parsed) ? parsed : [parsed];
  for (const item of items) {
    if (item === null || typeof item !== 'object') throw new TransportFailure('answered with a malformed JSON-RPC response', false);
    const r = item as JsonRpcResponse;
    // an error text may echo the key ("invalid API key …"): it is printed, so it is redacted here
    if (r.error !== undefined && r.error !== null) r.error = redactError(redact, r.error);
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

/** The endpoint's error with its URL and secrets masked in the message. */
function redactError(redact: (text: string) => string, error: unknown): JsonRpcErrorObject {
  const e = normaliseError(error);
  return { ...e, message: redact(e.message) };
}

/** A JSON-RPC error object, whatever shape the endpoint sent. */
export function normaliseError(error: unknown): JsonRpcErrorObject {
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

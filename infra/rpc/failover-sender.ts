import type { EndpointPool, PooledEndpoint } from './endpoint-pool.ts';
import { PRUNED_HISTORY } from './endpoint-ranges.ts';
import { BatchTooLarge, normaliseError, TransportFailure, type JsonRpcResponse, type PostCalls, type RpcCall } from './json-rpc-transport.ts';
import { RpcError, RpcUnreachableError, type EndpointFailure } from './rpc-error.ts';
import type { RpcClientSettings } from './rpc-client-settings.ts';
import type { RpcSettled } from './rpc-settled.ts';

export interface FailoverSender {
  /** `calls` in batch requests of at most the batch limit, `concurrency` at a time, to endpoints not `disallowed`. */
  sendAll(calls: readonly RpcCall[], disallowed?: ReadonlySet<PooledEndpoint>): Promise<RpcSettled[]>;
}

export interface FailoverSenderOptions {
  settings: Pick<RpcClientSettings, 'maxBatchSize' | 'retries' | 'backoffMs' | 'maxBackoffMs' | 'concurrency'>;
  /** in [0, 1), for jitter */
  random: () => number;
  /** a shard answered that the blocks are outside its range (it moved since its range was asked) */
  onOutsideRange?: () => void;
}

/**
 * Sends calls through the pool: a failed endpoint's calls move to the next one at once, rounds over
 * all endpoints wait with backoff (or as long as an endpoint asked), a batch an endpoint refuses as
 * too large is halved (later batches start at the size that worked).
 */
export function createFailoverSender(pool: EndpointPool, post: PostCalls, options: FailoverSenderOptions): FailoverSender {
  const { retries, backoffMs, maxBackoffMs, concurrency } = options.settings;
  const random = options.random;
  /** lowered for good when an endpoint refuses our batch size */
  let batchLimit = options.settings.maxBatchSize;

  /** One batch request's worth of calls, retried and failed over until every call has an answer. */
  async function sendChunk(calls: readonly RpcCall[], disallowed: ReadonlySet<PooledEndpoint>): Promise<RpcSettled[]> {
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
        if (err instanceof BatchTooLarge) return sendHalves(calls, pending, out, disallowed);
        if (!(err instanceof TransportFailure)) throw err;
        pool.markFailed(endpoint);
        failures.set(endpoint, err);
        continue;
      }
      const { still, refused } = settleAnswers(calls, pending, answers, endpoint.label, out);
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

  /** An endpoint refused the batch as too large: halve until it takes it; later batches start at the size that worked. */
  async function sendHalves(calls: readonly RpcCall[], pending: number[], out: RpcSettled[], disallowed: ReadonlySet<PooledEndpoint>): Promise<RpcSettled[]> {
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

  /** The pending calls' answers into `out`; what is still to send (no answer, or refused for now). */
  function settleAnswers(
    calls: readonly RpcCall[],
    pending: readonly number[],
    answers: Map<number, JsonRpcResponse>,
    label: string,
    out: RpcSettled[],
  ): { still: number[]; refused: RpcError | undefined } {
    const still: number[] = [];
    let refused: RpcError | undefined;
    pending.forEach((callIndex, k) => {
      const answer = answers.get(k);
      const method = calls[callIndex]!.method;
      if (answer === undefined) still.push(callIndex);
      else if (answer.error !== undefined && answer.error !== null) {
        const error = new RpcError(method, normaliseError(answer.error), { endpoint: label });
        // a shard whose range moved since we asked: batchSettled asks again and re-routes the call
        if (error.rpcCode === PRUNED_HISTORY) options.onOutsideRange?.();
        if (error.retryable) {
          refused = error;
          still.push(callIndex);
        } else out[callIndex] = { ok: false, error };
      } else out[callIndex] = { ok: true, value: answer.result ?? null, endpoint: label };
    });
    return { still, refused };
  }

  return {
    async sendAll(calls, disallowed = NONE) {
      const chunks = chunkCalls(calls, batchLimit);
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
    },
  };
}

/** `calls` cut into batches of at most `size`, in order. */
export function chunkCalls(calls: readonly RpcCall[], size: number): RpcCall[][] {
  const chunks: RpcCall[][] = [];
  for (let i = 0; i < calls.length; i += size) chunks.push(calls.slice(i, i + size));
  return chunks;
}

const NONE: ReadonlySet<PooledEndpoint> = new Set();

/** The calls an RpcUnreachableError names: the one method, or a batch's count and methods. */
export function describeCalls(calls: readonly RpcCall[]): string {
  const methods = [...new Set(calls.map((c) => c.method))];
  if (calls.length === 1) return methods[0]!;
  return `a batch of ${calls.length} calls (${methods.join(', ')})`;
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

import { IdxError } from '../../domain/errors.ts';

/**
 * How the indexer retries a failed fetch. Transient faults (resets, 5xx, rate limits) get a few
 * quick tries; an endpoint that is behind (it has no such block yet) gets time to catch up,
 * because giving up after seconds stops a node whose provider lags a minute behind its own head.
 */
export interface FetchRetryPolicy {
  /** tries in all for transient faults */
  attempts: number;
  /** wait before the second try; doubles each try */
  baseMs: number;
  /** longest wait between tries of a lagging endpoint */
  maxWaitMs: number;
  /** how long a lagging endpoint is waited for in all before the error stops the node */
  laggingPatienceMs: number;
}

export const DEFAULT_FETCH_RETRY: FetchRetryPolicy = { attempts: 5, baseMs: 500, maxWaitMs: 10_000, laggingPatienceMs: 300_000 };

/** The endpoint lacks the block (yet): `null` for a block, or geth's `header not found`. */
export function isEndpointBehind(err: unknown): boolean {
  if (!(err instanceof IdxError) || !err.retryable) return false;
  return err.code === 'CHAIN_BLOCK_NOT_FOUND' || (err.code === 'RPC_ERROR' && /header not found/i.test(err.message));
}

/** Milliseconds to wait before try `attempt + 1`, having waited `waitedMs` so far; undefined: give up. */
export function nextFetchRetry(err: unknown, attempt: number, waitedMs: number, policy: FetchRetryPolicy = DEFAULT_FETCH_RETRY): number | undefined {
  if (!(err instanceof IdxError && err.retryable)) return undefined;
  const wait = policy.baseMs * 2 ** Math.min(attempt - 1, 30);
  if (isEndpointBehind(err)) {
    const capped = Math.min(wait, policy.maxWaitMs);
    return waitedMs + capped > policy.laggingPatienceMs ? undefined : capped;
  }
  return attempt >= policy.attempts ? undefined : wait;
}

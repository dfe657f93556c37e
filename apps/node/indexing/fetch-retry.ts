import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';
import { abortableSleep } from '../../../domain/abortable-sleep.ts';

import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { RpcUnreachableError } from '../../../infra/rpc/rpc-error.ts';

/**
 * The one layer that waits out chain faults while indexing. The RPC client below it only fails over
 * between endpoints (it is created with `retries: 0`), so a fault is never retried twice over; the
 * sandbox's own chain reads are the exception, as nothing above them can retry half a block.
 *
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

/**
 * Milliseconds to wait before try `attempt + 1`, having waited `waitedMs` so far; undefined: give up.
 * An endpoint's `Retry-After` is honoured up to `maxWaitMs`.
 */
export function nextFetchRetry(err: unknown, attempt: number, waitedMs: number, policy: FetchRetryPolicy = DEFAULT_FETCH_RETRY): number | undefined {
  if (!(err instanceof IdxError && err.retryable)) return undefined;
  const asked = Math.min(policy.maxWaitMs, err instanceof RpcUnreachableError ? err.retryAfterMs : 0);
  const wait = Math.max(asked, policy.baseMs * 2 ** Math.min(attempt - 1, 30));
  if (isEndpointBehind(err)) {
    const capped = Math.min(wait, policy.maxWaitMs);
    return waitedMs + capped > policy.laggingPatienceMs ? undefined : capped;
  }
  return attempt >= policy.attempts ? undefined : wait;
}

/** `attemptOnce` until it succeeds or the policy gives up; each wait is logged as a `fetch-retry` event about `what`. */
export async function withFetchRetry<T>(
  what: { label: string; from?: number; to?: number },
  attemptOnce: () => Promise<T>,
  policy: FetchRetryPolicy,
  log: Logger,
  signal?: AbortSignal,
): Promise<T> {
  let waited = 0;
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptOnce();
    } catch (err) {
      const wait = signal?.aborted ? undefined : nextFetchRetry(err, attempt, waited, policy);
      if (wait === undefined) throw err;
      const behind = isEndpointBehind(err);
      const left = behind
        ? `the endpoint is behind; waiting up to ${Math.round((policy.laggingPatienceMs - waited) / 1000)} s more for it`
        : `${attempt}/${policy.attempts - 1}`;
      log.warn(`${what.label} failed (${(err as Error).message}); retrying in ${wait} ms (${left})`, {
        event: 'fetch-retry',
        from: what.from,
        to: what.to,
        attempt,
        waitMs: wait,
        behind,
        code: err instanceof IdxError ? err.code : undefined,
      });
      await abortableSleep(wait, signal);
      waited += wait;
    }
  }
}

/** The reads of the indexing loop (heads, finality, block identities) under the same retry policy as fetches. */
export function retryingSource<S extends ChainHeads>(source: S, policy: FetchRetryPolicy, log: Logger, signal?: AbortSignal): ChainHeads {
  return {
    bestHeight: () => withFetchRetry({ label: 'reading the best height' }, () => source.bestHeight(), policy, log, signal),
    finalizedHeight: () => withFetchRetry({ label: 'reading the finalized height' }, () => source.finalizedHeight(), policy, log, signal),
    getBlockRefs: (heights) =>
      withFetchRetry(
        { label: `reading the hashes of ${heights.length} block${heights.length === 1 ? '' : 's'}`, from: heights[0], to: heights[heights.length - 1] },
        () => source.getBlockRefs(heights),
        policy,
        log,
        signal,
      ),
  };
}

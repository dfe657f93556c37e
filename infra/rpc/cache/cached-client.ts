import type { RpcCall, RpcClient, RpcSettled } from '../create-rpc-client.ts';
import { settledCalls } from '../rpc-settled.ts';
import { cacheLookup, cacheSlot, type CacheLookup, type CacheRules, type CacheSlot } from './cacheable-call.ts';
import { coveringSpans, logsWithin } from './log-coverage.ts';
import type { RpcCacheStore } from './rpc-cache-store.ts';

/** An answer from the cache is said to come from here, where an endpoint's label would be. */
export const RPC_CACHE_ENDPOINT = 'rpc-cache';

export interface RpcCacheCounts {
  /** calls answered from the cache */
  served: number;
  /** calls the rules could keep, asked of the endpoints */
  fetched: number;
  /** of those, answers kept */
  kept: number;
}

export interface CachedClientDeps {
  rules: CacheRules;
  /** the chain's store, once its genesis is known; until then every call goes to the endpoints */
  store(): RpcCacheStore | undefined;
  /** the highest height known final now: answers at heights above it are not kept */
  finalized(): number;
  counts?: RpcCacheCounts;
}

/**
 * An RPC client behind the RPC cache: calls the rules say never change are answered from the cache
 * when it holds them; the others, and those it lacks, go to the endpoints in one batch, and what of
 * their answers is final is kept. `batchEach` (checking endpoints against each other) always asks
 * them. When an answer the cache gave proves wrong (`distrust`), it serves nothing more this run.
 */
export function cachedClient(inner: RpcClient, deps: CachedClientDeps): RpcClient {
  const counts = deps.counts ?? { served: 0, fetched: 0, kept: 0 };
  let distrusted = false;

  /** A call's answer from the cache, or undefined. */
  async function fromCache(store: RpcCacheStore, lookup: CacheLookup | undefined): Promise<unknown> {
    if (lookup === undefined) return undefined;
    const exact = await store.get(lookup.key);
    if (exact !== undefined || lookup.span === undefined) return exact;
    const { from, to, filter } = lookup.span;
    const cover = coveringSpans(store.spans(filter), from, to);
    if (cover === undefined) return undefined;
    const lists = await Promise.all(cover.map((s) => store.get(s.at)));
    if (lists.some((l) => !Array.isArray(l))) return undefined;
    return logsWithin(lists as unknown[][], from, to);
  }

  const batchSettled = async (calls: readonly RpcCall[]): Promise<RpcSettled[]> => {
    const store = distrusted ? undefined : deps.store();
    if (store === undefined) return inner.batchSettled(calls);
    const lookups = calls.map((c) => cacheLookup(deps.rules, c));
    const cached = await Promise.all(lookups.map((l) => fromCache(store, l)));
    const missing = calls.flatMap((c, i) => (cached[i] === undefined ? [i] : []));
    const settled: RpcSettled[] = cached.map((value) => ({ ok: true, value, endpoint: RPC_CACHE_ENDPOINT }));
    counts.served += calls.length - missing.length;
    if (missing.length === 0) return settled;
    const answers = await inner.batchSettled(missing.map((i) => calls[i]!));
    const finalized = deps.finalized();
    const kept: (CacheSlot & { value: unknown })[] = [];
    answers.forEach((answer, j) => {
      const call = calls[missing[j]!]!;
      settled[missing[j]!] = answer;
      if (lookups[missing[j]!] !== undefined) counts.fetched++;
      if (!answer.ok) return;
      const slot = cacheSlot(deps.rules, call, answer.value, finalized);
      if (slot !== undefined) kept.push({ ...slot, value: answer.value });
    });
    counts.kept += kept.length;
    store.put(kept);
    return settled;
  };

  return {
    endpoints: inner.endpoints,
    distrust(endpoint) {
      if (endpoint.split(', ').includes(RPC_CACHE_ENDPOINT)) distrusted = true;
      inner.distrust(endpoint);
    },
    batchSettled,
    batchEach: (calls) => inner.batchEach(calls),
    ...settledCalls(batchSettled),
  };
}

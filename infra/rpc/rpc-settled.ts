import type { RpcCall } from './json-rpc-transport.ts';
import type { RpcError } from './rpc-error.ts';

/** `endpoint`: who answered (redacted), to name it when the answer later proves wrong */
export type RpcSettled = { ok: true; value: unknown; endpoint?: string } | { ok: false; error: RpcError };

/** One endpoint's answers to the same calls asked of every endpoint, or why it did not answer. */
export type EndpointAnswer = { endpoint: string; settled: RpcSettled[] } | { endpoint: string; failure: string };

/**
 * A client's `request` and `batch` over its `batchSettled`: one call's value, or every call's in
 * order, an endpoint's error thrown in its place.
 */
export function settledCalls(batchSettled: (calls: readonly RpcCall[]) => Promise<RpcSettled[]>) {
  return {
    async request<T = unknown>(method: string, params: readonly unknown[] = []): Promise<T> {
      const [settled] = await batchSettled([{ method, params }]);
      if (!settled!.ok) throw settled!.error;
      return settled!.value as T;
    },
    async batch<T = unknown>(calls: readonly RpcCall[]): Promise<T[]> {
      return (await batchSettled(calls)).map((s) => {
        if (!s.ok) throw s.error;
        return s.value as T;
      });
    },
  };
}

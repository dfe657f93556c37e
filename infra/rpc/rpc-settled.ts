import type { RpcError } from './rpc-error.ts';

/** `endpoint`: who answered (redacted), to name it when the answer later proves wrong */
export type RpcSettled = { ok: true; value: unknown; endpoint?: string } | { ok: false; error: RpcError };

/** One endpoint's answers to the same calls asked of every endpoint, or why it did not answer. */
export type EndpointAnswer = { endpoint: string; settled: RpcSettled[] } | { endpoint: string; failure: string };

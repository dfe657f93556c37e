import { IdxError } from '../../domain/errors.ts';

/** The `error` member of a JSON-RPC 2.0 response. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/**
 * An endpoint answered a call with a JSON-RPC error. `code` is always `RPC_ERROR` so callers can
 * tell it from transport failures; `rpcCode` and `data` are what the endpoint sent.
 */
export class RpcError extends IdxError {
  readonly rpcCode: number;
  /** the endpoint's own message, without the method and endpoint this error's message adds */
  readonly rpcMessage: string;
  readonly data: unknown;
  readonly method: string;

  constructor(method: string, error: JsonRpcErrorObject, options: { endpoint?: string } = {}) {
    const from = options.endpoint === undefined ? '' : ` (from ${options.endpoint})`;
    super('RPC_ERROR', `${method} failed with JSON-RPC error ${error.code}: ${error.message}${from}`, {
      retryable: isRateLimited(error) || isLagging(error),
    });
    this.name = 'RpcError';
    this.rpcCode = error.code;
    this.rpcMessage = error.message;
    this.data = error.data;
    this.method = method;
  }
}

/**
 * Providers signal "slow down" in many ways: HTTP 429 as an error code, -32005 (also used for
 * result limits, so the text decides), -32029, or only in the message.
 */
export function isRateLimited(error: JsonRpcErrorObject): boolean {
  if (error.code === 429 || error.code === -32029) return true;
  return /rate.?limit|too many requests|request rate|requests per second|compute units|capacity|request count exceeded|throttl/i.test(error.message);
}

/**
 * The endpoint does not have the block yet (geth's `header not found` for a state read at a height
 * it has not reached): behind a load balancer, another node or a moment later will have it.
 */
export function isLagging(error: JsonRpcErrorObject): boolean {
  return /header not found/i.test(error.message);
}

/** The method does not exist on this endpoint (e.g. `eth_getBlockReceipts` on older nodes). */
export function isMethodUnsupported(err: unknown): boolean {
  if (!(err instanceof RpcError)) return false;
  return (
    err.rpcCode === -32601 || /method .*(not (found|supported|available|exist)|unsupported|does not exist)|unsupported method|not supported/i.test(err.message)
  );
}

/** One endpoint's failure to answer at all, as remembered for the final error message. */
export interface EndpointFailure {
  endpoint: string;
  error: string;
}

/** Every endpoint failed to answer, through every retry. */
export class RpcUnreachableError extends IdxError {
  readonly failures: EndpointFailure[];
  /** the longest wait an endpoint asked for (HTTP 429/503 `Retry-After`), for the caller that retries */
  readonly retryAfterMs: number;

  constructor(method: string, attempts: number, failures: EndpointFailure[], retryAfterMs = 0) {
    const lines = failures.map((f) => `  - ${f.endpoint}: ${f.error}`).join('\n');
    super(
      'RPC_UNREACHABLE',
      `no RPC endpoint answered ${method} (${attempts} attempt${attempts === 1 ? '' : 's'}):\n${lines}\n` +
        'Check that each endpoint URL (and any API key in it) is right and reachable from this machine, ' +
        'that the node behind it is running and synced, and that the provider is not rate limiting you; ' +
        'more --network-endpoint values spread the load.',
      { retryable: true },
    );
    this.name = 'RpcUnreachableError';
    this.failures = failures;
    this.retryAfterMs = retryAfterMs;
  }
}

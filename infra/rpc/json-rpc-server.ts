import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * A JSON-RPC 2.0 server over HTTP POST (https://www.jsonrpc.org/specification): single calls and
 * batches, notifications (no answer; a request of only notifications gets HTTP 204), and the
 * standard errors -32700, -32600, -32601, -32602 and -32603. Methods take positional params.
 */

export const PARSE_ERROR = -32700;
export const INVALID_REQUEST = -32600;
export const METHOD_NOT_FOUND = -32601;
export const INVALID_PARAMS = -32602;
export const INTERNAL_ERROR = -32603;
/** geth's code for an answer over its size limit (`--rpc.batch-response-max-size`) */
export const RESPONSE_TOO_LARGE = -32003;
/** a request without valid credentials (HTTP 401) */
export const UNAUTHORIZED = -32001;

/** Thrown by a method: answered as the call's `error` member. */
export class JsonRpcServerError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
    this.name = 'JsonRpcServerError';
  }
}

export function invalidParams(message: string): JsonRpcServerError {
  return new JsonRpcServerError(INVALID_PARAMS, message);
}

/** A result that is already JSON text (e.g. stored as the upstream sent it): spliced into the answer as is. */
export class RawJson {
  constructor(readonly text: string) {}
}

export type JsonRpcMethod = (params: readonly unknown[]) => unknown;

export interface JsonRpcHandlerOptions {
  methods: Readonly<Record<string, JsonRpcMethod>>;
  /** most calls in one batch (default 1000); a larger batch is refused as a whole */
  maxBatchSize?: number;
  /** largest request body in bytes (default 5 MiB); larger ones get HTTP 413 */
  maxBodyBytes?: number;
  /**
   * largest answer in bytes (default 25,000,000, geth's batch limit), of one call or a whole batch:
   * a call whose answer is larger, and every call of a batch after the answers reached it, is
   * answered -32003 instead (the rest of the batch is not run)
   */
  maxResponseBytes?: number;
  /** how many calls of one batch run at a time (default 4), so other clients' requests interleave */
  batchConcurrency?: number;
  /** why a request may not be served (checked before its body is read; answered HTTP 401), or undefined */
  authorize?: (req: IncomingMessage) => string | undefined;
  /** an error that is not a JsonRpcServerError (a bug or a database failure): answered -32603 */
  onInternalError?: (err: unknown, method: string) => void;
}

type Id = string | number | null;

const has = (o: object, key: string) => Object.prototype.hasOwnProperty.call(o, key);

/** The request listener for `http.createServer`. */
export function createJsonRpcHandler(options: JsonRpcHandlerOptions): (req: IncomingMessage, res: ServerResponse) => void {
  const maxBatch = options.maxBatchSize ?? 1000;
  const maxBody = options.maxBodyBytes ?? 5 * 2 ** 20;
  const maxResponse = options.maxResponseBytes ?? 25_000_000;
  const concurrency = options.batchConcurrency ?? 4;
  const methods = new Map(Object.entries(options.methods));

  /** One call's answer as JSON text, or undefined for a notification. */
  async function answer(call: unknown): Promise<string | undefined> {
    if (call === null || typeof call !== 'object' || Array.isArray(call))
      return errorText(null, INVALID_REQUEST, 'Invalid Request: expected a JSON-RPC request object');
    const c = call as Record<string, unknown>;
    const validId = c.id === null || typeof c.id === 'string' || (typeof c.id === 'number' && Number.isFinite(c.id));
    const id: Id = validId ? (c.id as Id) : null;
    // A malformed request is answered even without an id (the specification's `{"foo": "boo"}` example):
    // only a valid request without an id is a notification.
    if (has(c, 'id') && !validId) return errorText(null, INVALID_REQUEST, 'Invalid Request: id must be a string, a number or null');
    if (c.jsonrpc !== '2.0') return errorText(id, INVALID_REQUEST, 'Invalid Request: jsonrpc must be "2.0"');
    if (typeof c.method !== 'string') return errorText(id, INVALID_REQUEST, 'Invalid Request: method must be a string');
    if (has(c, 'params') && (c.params === null || typeof c.params !== 'object'))
      return errorText(id, INVALID_REQUEST, 'Invalid Request: params must be an array or an object');
    const isNotification = !has(c, 'id');
    const method = methods.get(c.method);
    let result: unknown;
    try {
      if (method === undefined) throw new JsonRpcServerError(METHOD_NOT_FOUND, `the method ${c.method} does not exist/is not available`);
      if (has(c, 'params') && !Array.isArray(c.params)) throw invalidParams(`${c.method} takes its params as an array (by position), not as an object`);
      result = await method((c.params as unknown[] | undefined) ?? []);
    } catch (err) {
      if (isNotification) return undefined;
      if (err instanceof JsonRpcServerError) return errorText(id, err.code, err.message, err.data);
      options.onInternalError?.(err, c.method);
      return errorText(id, INTERNAL_ERROR, `Internal error: ${(err as Error).message ?? String(err)}`);
    }
    if (isNotification) return undefined;
    const text = result instanceof RawJson ? result.text : JSON.stringify(result === undefined ? null : result);
    const bytes = Buffer.byteLength(text);
    if (bytes > maxResponse) {
      return errorText(
        id,
        RESPONSE_TOO_LARGE,
        `response too large: the answer of ${c.method} is ${bytes} bytes, more than this server's limit of ${maxResponse}; ask for less (e.g. a narrower block range)`,
      );
    }
    return `{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":${text}}`;
  }

  /** The answer to a call of a batch left out (and not run, once known) because the batch's answers reached the limit. */
  function leftOut(call: unknown): string | undefined {
    const c = call !== null && typeof call === 'object' && !Array.isArray(call) ? (call as Record<string, unknown>) : undefined;
    if (c !== undefined && !has(c, 'id')) return undefined;
    const id = c !== undefined && (c.id === null || typeof c.id === 'string' || (typeof c.id === 'number' && Number.isFinite(c.id))) ? (c.id as Id) : null;
    return errorText(
      id,
      RESPONSE_TOO_LARGE,
      `response too large: the answers of this batch reached this server's limit of ${maxResponse} bytes, so this call's answer is left out: send it again in another request`,
    );
  }

  /** A batch's answers in order, run a few at a time and stopped once they reach the size limit. */
  async function answerBatch(calls: readonly unknown[]): Promise<string[]> {
    const answers: string[] = [];
    let size = 2;
    let full = false;
    for (let i = 0; i < calls.length; i += concurrency) {
      const group = calls.slice(i, i + concurrency);
      const texts = full ? group.map(leftOut) : await Promise.all(group.map(answer));
      texts.forEach((text, j) => {
        if (text === undefined) return;
        if (!full && size + Buffer.byteLength(text) + 1 > maxResponse) full = true;
        const kept = full ? leftOut(group[j]) : text;
        if (kept === undefined) return;
        size += Buffer.byteLength(kept) + 1;
        answers.push(kept);
      });
    }
    return answers;
  }

  async function handleBody(body: string): Promise<string | undefined> {
    let parsed: unknown;
    try {
      parsed = JSON.parse(body);
    } catch {
      return errorText(null, PARSE_ERROR, 'Parse error: the request body is not valid JSON');
    }
    if (!Array.isArray(parsed)) return answer(parsed);
    if (parsed.length === 0) return errorText(null, INVALID_REQUEST, 'Invalid Request: an empty batch');
    if (parsed.length > maxBatch)
      return errorText(null, INVALID_REQUEST, `Invalid Request: batch too large: ${parsed.length} calls, at most ${maxBatch} per batch`);
    const answers = await answerBatch(parsed);
    return answers.length === 0 ? undefined : `[${answers.join(',')}]`;
  }

  return (req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST', 'content-type': 'application/json' });
      res.end(errorText(null, INVALID_REQUEST, 'Invalid Request: send JSON-RPC 2.0 requests as HTTP POST'));
      return;
    }
    const refusal = options.authorize?.(req);
    if (refusal !== undefined) {
      res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
      res.end(errorText(null, UNAUTHORIZED, `Unauthorized: ${refusal}`));
      req.resume();
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    req.on('data', (chunk: Buffer) => {
      if (refused) return;
      size += chunk.length;
      if (size > maxBody) {
        refused = true;
        res.writeHead(413, { 'content-type': 'application/json', connection: 'close' });
        res.end(errorText(null, INVALID_REQUEST, `Invalid Request: the body is larger than ${maxBody} bytes`));
        req.resume();
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (refused) return;
      void handleBody(Buffer.concat(chunks).toString('utf8')).then(
        (text) => {
          if (res.destroyed) return;
          if (text === undefined) {
            res.writeHead(204);
            res.end();
            return;
          }
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(text);
        },
        (err: unknown) => {
          options.onInternalError?.(err, '(request)');
          if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
          res.end(errorText(null, INTERNAL_ERROR, 'Internal error'));
        },
      );
    });
  };
}

function errorText(id: Id, code: number, message: string, data?: unknown): string {
  const error = data === undefined ? { code, message } : { code, message, data };
  return JSON.stringify({ jsonrpc: '2.0', id, error });
}

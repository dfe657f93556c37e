import { IdxError } from '../../domain/errors.ts';
import type { HeightRange } from '../../domain/blocks/next-range.ts';
import { dictionaryHeights, dictionaryRequest, type DictionaryEntry, type DictionaryHeights } from '../../domain/chains/ethereum/dictionary-query.ts';
import { endpointTarget } from '../rpc/endpoint-target.ts';

/** How far a dictionary has indexed, and which chain it serves. */
export interface DictionaryMetadata {
  lastProcessedHeight: number;
  genesisHash?: string;
  chain?: string;
  startHeight?: number;
}

export interface DictionaryAnswer {
  /** undefined when the answer could not cover the whole range (a full page) */
  heights?: DictionaryHeights;
  metadata: DictionaryMetadata;
}

/** A SubQuery-style dictionary: a GraphQL endpoint over `evmLogs` and `evmTransactions`. */
export interface DictionaryClient {
  /** redacted, for logs */
  readonly name: string;
  metadata(): Promise<DictionaryMetadata>;
  heights(entries: readonly DictionaryEntry[], range: HeightRange): Promise<DictionaryAnswer>;
}

export interface DictionaryClientOptions {
  url: string;
  /** `--dictionary-timeout`, in seconds */
  timeoutSeconds: number;
  /** the dictionary's `--query-limit`; SubQuery's default is 100 */
  pageLimit?: number;
}

/** A dictionary failed to answer; the node fetches the range from the chain instead. */
export class DictionaryError extends IdxError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('DICTIONARY_FAILED', message, { ...options, retryable: true });
    this.name = 'DictionaryError';
  }
}

// Older dictionaries lack `distinct` and `_metadata.startHeight`; their error texts tell.
const NO_DISTINCT = /Unknown argument "distinct"/;
const NO_START_HEIGHT = /Cannot query field "startHeight"/;

export function createDictionaryClient(options: DictionaryClientOptions): DictionaryClient {
  // a user and password in the URL go as basic auth; messages name the dictionary by its redacted URL
  const target = endpointTarget(options.url);
  const name = target.label;
  const pageLimit = options.pageLimit ?? 100;
  let distinct = true;
  let startHeight = true;

  async function post(query: string, variables: Record<string, unknown> = {}): Promise<Record<string, unknown>> {
    let res: Response;
    try {
      res = await fetch(target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json', ...target.headers },
        body: JSON.stringify({ query, variables }),
        signal: AbortSignal.timeout(options.timeoutSeconds * 1000),
      });
    } catch (err) {
      if ((err as Error).name === 'TimeoutError') {
        throw new DictionaryError(`dictionary ${name} did not answer within ${options.timeoutSeconds} s; raise --dictionary-timeout if it is just slow`, {
          cause: err,
        });
      }
      // not the error itself as the cause: fetch's messages quote the URL whole
      throw new DictionaryError(`cannot reach dictionary ${name}: ${target.redact(describeCause(err))}`);
    }
    const text = await res.text();
    let body: { data?: Record<string, unknown> | null; errors?: { message: string }[] };
    try {
      body = JSON.parse(text) as typeof body;
    } catch {
      throw new DictionaryError(`dictionary ${name} answered HTTP ${res.status} with something that is not GraphQL JSON: ${target.redact(text.slice(0, 200))}`);
    }
    if (body.errors !== undefined && body.errors.length > 0) {
      throw new DictionaryError(`dictionary ${name} refused the query: ${target.redact(body.errors.map((e) => e.message).join('; '))}`);
    }
    if (body.data === undefined || body.data === null) throw new DictionaryError(`dictionary ${name} answered HTTP ${res.status} without data`);
    return body.data;
  }

  function readMetadata(data: Record<string, unknown>): DictionaryMetadata {
    const raw = data._metadata as Record<string, unknown> | null | undefined;
    const height = Number(raw?.lastProcessedHeight);
    if (raw === null || raw === undefined || !Number.isSafeInteger(height)) {
      throw new DictionaryError(`dictionary ${name} has no _metadata.lastProcessedHeight: is it a dictionary?`);
    }
    const out: DictionaryMetadata = { lastProcessedHeight: height };
    if (typeof raw.genesisHash === 'string') out.genesisHash = raw.genesisHash;
    if (typeof raw.chain === 'string' || typeof raw.chain === 'number') out.chain = String(raw.chain);
    if (raw.startHeight !== undefined && raw.startHeight !== null) out.startHeight = Number(raw.startHeight);
    return out;
  }

  return {
    name,
    async metadata() {
      try {
        return readMetadata(await post(`{ _metadata { lastProcessedHeight genesisHash chain${startHeight ? ' startHeight' : ''} } }`));
      } catch (err) {
        if (startHeight && err instanceof DictionaryError && NO_START_HEIGHT.test(err.message)) {
          startHeight = false;
          return this.metadata();
        }
        throw err;
      }
    },
    async heights(entries, range) {
      // With distinct heights, one more row than the range has heights would mean a cut page: it cannot happen.
      const limit = Math.min(range.to - range.from + 2, pageLimit);
      const request = dictionaryRequest(entries, range, { distinct, limit });
      let data: Record<string, unknown>;
      try {
        data = await post(request.query, request.variables);
      } catch (err) {
        if (distinct && err instanceof DictionaryError && NO_DISTINCT.test(err.message)) {
          distinct = false;
          return this.heights(entries, range);
        }
        throw err;
      }
      const heights = dictionaryHeights(data, limit);
      return { metadata: readMetadata(data), ...(heights !== undefined && { heights }) };
    },
  };
}

/** fetch's error, with the reason undici keeps in `cause` (ECONNREFUSED, ENOTFOUND…) */
export function describeCause(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  const why = cause?.message ?? cause?.code;
  return why === undefined || message.includes(why) ? message : `${message} (${why})`;
}

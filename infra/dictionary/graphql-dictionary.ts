import { IdxError } from '../../domain/errors.ts';
import { endpointTarget } from '../rpc/endpoint-target.ts';

/**
 * A SubQuery-style dictionary as any family's reads it: a GraphQL endpoint with `_metadata`. What
 * a family asks of it (the blocks its filters match) is the family's
 * (infra/chains/<family>/create-dictionary-client.ts).
 */

/** How far a dictionary has indexed, and which chain it serves. */
export interface DictionaryMetadata {
  lastProcessedHeight: number;
  genesisHash?: string;
  chain?: string;
  startHeight?: number;
}

export interface DictionaryOptions {
  url: string;
  /** `--dictionary-timeout`, in seconds */
  timeoutSeconds: number;
}

export interface GraphqlDictionary {
  /** redacted, for logs */
  readonly name: string;
  /** the query's `data`; DictionaryError when it cannot be had */
  post(query: string, variables?: Record<string, unknown>): Promise<Record<string, unknown>>;
  /** `_metadata`, asked alone */
  metadata(): Promise<DictionaryMetadata>;
  /** `_metadata` of an answer that asked for it */
  readMetadata(data: Record<string, unknown>): DictionaryMetadata;
}

/** A dictionary failed to answer; the node fetches the range from the chain instead. */
export class DictionaryError extends IdxError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super('DICTIONARY_FAILED', message, { ...options, retryable: true });
    this.name = 'DictionaryError';
  }
}

// Older dictionaries lack `_metadata.startHeight`; their error texts tell.
const NO_START_HEIGHT = /Cannot query field "startHeight"/;

export function graphqlDictionary(options: DictionaryOptions): GraphqlDictionary {
  // a user and password in the URL go as basic auth; messages name the dictionary by its redacted URL
  const target = endpointTarget(options.url);
  const name = target.label;
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

  async function metadata(): Promise<DictionaryMetadata> {
    try {
      return readMetadata(await post(`{ _metadata { lastProcessedHeight genesisHash chain${startHeight ? ' startHeight' : ''} } }`));
    } catch (err) {
      if (startHeight && err instanceof DictionaryError && NO_START_HEIGHT.test(err.message)) {
        startHeight = false;
        return metadata();
      }
      throw err;
    }
  }

  return { name, post, metadata, readMetadata };
}

/** fetch's error, with the reason undici keeps in `cause` (ECONNREFUSED, ENOTFOUND…) */
export function describeCause(err: unknown): string {
  const message = err instanceof Error ? err.message : String(err);
  const cause = err instanceof Error ? (err.cause as { message?: string; code?: string } | undefined) : undefined;
  const why = cause?.message ?? cause?.code;
  return why === undefined || message.includes(why) ? message : `${message} (${why})`;
}

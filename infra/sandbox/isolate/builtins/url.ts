import { path } from './path.ts';
import { createUrlClass } from './url-class.ts';
import { URLSearchParams } from './url-search-params.ts';

/**
 * `url` for mappings, and the `URL`/`URLSearchParams` globals. Parsing and serializing URLs cross
 * to the host's Node (url-host.ts), so results match Node's exactly; `URLSearchParams` is plain
 * form-urlencoded text handling and runs here. File paths are posix, resolved against `/` as the
 * sandbox's `path` does.
 */
export interface UrlBridge {
  url(op: string, args: unknown[]): unknown;
}

interface HostError {
  error: { name: string; message: string; code?: string; input?: string };
}

const isError = (r: unknown): r is HostError => r !== null && typeof r === 'object' && 'error' in r;

function thrown({ error }: HostError): Error {
  const err = (
    error.name === 'TypeError' ? new TypeError(error.message) : error.name === 'RangeError' ? new RangeError(error.message) : new Error(error.message)
  ) as Error & Record<string, unknown>;
  if (error.code !== undefined) err.code = error.code;
  if (error.input !== undefined) err.input = error.input;
  return err;
}

/** A legacy `url.parse` result, as Node's `Url`. */
export class Url {
  protocol: string | null = null;
  slashes: boolean | null = null;
  auth: string | null = null;
  host: string | null = null;
  port: string | null = null;
  hostname: string | null = null;
  hash: string | null = null;
  search: string | null = null;
  query: string | Record<string, unknown> | null = null;
  pathname: string | null = null;
  path: string | null = null;
  href: string | null = null;
}

export function createUrl(bridge: UrlBridge) {
  const call = <T>(op: string, args: unknown[]): T => {
    const r = bridge.url(op, args);
    if (isError(r)) throw thrown(r);
    return r as T;
  };

  const URL = createUrlClass(call, (input, base) => !isError(bridge.url('parse', [input, base])));
  type URL = InstanceType<typeof URL>;

  const legacyParse = (input: unknown, parseQueryString = false, slashesDenoteHost = false): Url => {
    if (typeof input !== 'string') throw new TypeError(`The "url" argument must be of type string. Received ${input === null ? 'null' : typeof input}`);
    return Object.assign(new Url(), call<Record<string, unknown>>('legacyParse', [input, parseQueryString === true, slashesDenoteHost === true]));
  };

  const format = (input: unknown, options?: { auth?: boolean; fragment?: boolean; search?: boolean; unicode?: boolean }): string => {
    if (input instanceof URL) return call<string>('formatURL', [input.href, options ?? {}]);
    if (typeof input === 'string') return call<string>('format', [input]);
    if (input === null || typeof input !== 'object')
      throw new TypeError(`The "urlObject" argument must be one of type object or string. Received ${input === null ? 'null' : typeof input}`);
    const plain: Record<string, unknown> = {};
    for (const k of ['protocol', 'slashes', 'auth', 'host', 'port', 'hostname', 'hash', 'search', 'query', 'pathname', 'path', 'href']) {
      const v = (input as Record<string, unknown>)[k];
      if (v !== undefined) plain[k] = v !== null && typeof v === 'object' ? Object.fromEntries(Object.entries(v)) : v;
    }
    return call<string>('format', [plain]);
  };

  const pathToFileURL = (filepath: unknown): URL => {
    if (typeof filepath !== 'string')
      throw new TypeError(`The "path" argument must be of type string. Received ${filepath === null ? 'null' : typeof filepath}`);
    let resolved = path.resolve(filepath);
    // resolve drops a trailing slash, which names a directory
    if (filepath.endsWith('/') && !resolved.endsWith('/')) resolved += '/';
    return new URL(call<string>('pathToFileURL', [resolved]));
  };

  const fileURLToPath = (url: unknown): string => {
    const href = url instanceof URL ? url.href : typeof url === 'string' ? url : undefined;
    if (href === undefined)
      throw new TypeError(`The "path" argument must be of type string or an instance of URL. Received ${url === null ? 'null' : typeof url}`);
    return call<string>('fileURLToPath', [href]);
  };

  const url = {
    URL,
    URLSearchParams,
    Url,
    parse: legacyParse,
    format,
    resolve: (from: unknown, to: unknown): string => call<string>('resolve', [String(from), String(to)]),
    domainToASCII: (domain: unknown): string => call<string>('domainToASCII', [String(domain)]),
    domainToUnicode: (domain: unknown): string => call<string>('domainToUnicode', [String(domain)]),
    pathToFileURL,
    fileURLToPath,
  };
  return url;
}

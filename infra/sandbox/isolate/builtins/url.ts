import { Buffer } from 'buffer';
import { path } from './path.ts';

/**
 * `url` for mappings, and the `URL`/`URLSearchParams` globals. Parsing and serializing URLs cross
 * to the host's Node (url-host.ts), so results match Node's exactly; `URLSearchParams` is plain
 * form-urlencoded text handling and runs here. File paths are posix, resolved against `/` as the
 * sandbox's `path` does.
 */
export interface UrlBridge {
  url(op: string, args: unknown[]): unknown;
}

interface Parts {
  href: string;
  origin: string;
  protocol: string;
  username: string;
  password: string;
  host: string;
  hostname: string;
  port: string;
  pathname: string;
  search: string;
  hash: string;
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

// form-urlencoded: these bytes stay as they are, space becomes '+', every other byte %XX
const SAFE = new Set([0x2a, 0x2d, 0x2e, 0x5f]);
const isSafe = (b: number) => SAFE.has(b) || (b >= 0x30 && b <= 0x39) || (b >= 0x41 && b <= 0x5a) || (b >= 0x61 && b <= 0x7a);

function encodeForm(s: string): string {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) out += isSafe(b) ? String.fromCharCode(b) : b === 0x20 ? '+' : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  return out;
}

const hex = (c: number) => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);

function decodeForm(s: string): string {
  const bytes = Buffer.from(s.replace(/\+/g, ' '), 'utf8');
  const out: number[] = [];
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!;
    if (b === 0x25 && i + 2 < bytes.length && hex(bytes[i + 1]!) && hex(bytes[i + 2]!)) {
      out.push(parseInt(String.fromCharCode(bytes[i + 1]!, bytes[i + 2]!), 16));
      i += 2;
    } else out.push(b);
  }
  return Buffer.from(out).toString('utf8');
}

const toUSV = (v: unknown) => Buffer.from(String(v), 'utf8').toString('utf8');

function parseForm(query: string): [string, string][] {
  const list: [string, string][] = [];
  for (const part of query.split('&')) {
    if (part === '') continue;
    const eq = part.indexOf('=');
    list.push(eq === -1 ? [decodeForm(part), ''] : [decodeForm(part.slice(0, eq)), decodeForm(part.slice(eq + 1))]);
  }
  return list;
}

const kUpdate = Symbol('update');

export class URLSearchParams {
  #list: [string, string][] = [];
  /** @internal set by the URL owning these params */
  [kUpdate]?: () => void;

  constructor(init: unknown = '') {
    if (init instanceof URLSearchParams) {
      this.#list = init.#list.map(([k, v]) => [k, v]);
    } else if (init !== null && (typeof init === 'object' || typeof init === 'function')) {
      const iterator = (init as { [Symbol.iterator]?: unknown })[Symbol.iterator];
      if (iterator !== undefined) {
        if (typeof iterator !== 'function') throw new TypeError('Query pairs must be iterable');
        for (const pair of init as Iterable<unknown>) {
          if (pair === null || typeof pair !== 'object' || typeof (pair as { [Symbol.iterator]?: unknown })[Symbol.iterator] !== 'function') {
            throw new TypeError('Each query pair must be an iterable [name, value] tuple');
          }
          const kv = [...(pair as Iterable<unknown>)];
          if (kv.length !== 2) throw new TypeError('Each query pair must be an iterable [name, value] tuple');
          this.#list.push([toUSV(kv[0]), toUSV(kv[1])]);
        }
      } else {
        for (const key of Object.keys(init)) this.#list.push([toUSV(key), toUSV((init as Record<string, unknown>)[key])]);
      }
    } else {
      const s = toUSV(init);
      this.#list = parseForm(s.startsWith('?') ? s.slice(1) : s);
    }
  }

  /** @internal replaces the pairs from a URL's new query, without telling the URL */
  static reset(params: URLSearchParams, query: string): void {
    params.#list = parseForm(query.startsWith('?') ? query.slice(1) : query);
  }

  #changed(): void {
    this[kUpdate]?.();
  }

  get size(): number {
    return this.#list.length;
  }

  append(name: unknown, value: unknown): void {
    this.#list.push([toUSV(name), toUSV(value)]);
    this.#changed();
  }

  delete(name: unknown, value?: unknown): void {
    const n = toUSV(name);
    const v = value === undefined ? undefined : toUSV(value);
    this.#list = this.#list.filter(([k, x]) => !(k === n && (v === undefined || x === v)));
    this.#changed();
  }

  get(name: unknown): string | null {
    const n = toUSV(name);
    return this.#list.find(([k]) => k === n)?.[1] ?? null;
  }

  getAll(name: unknown): string[] {
    const n = toUSV(name);
    return this.#list.filter(([k]) => k === n).map(([, v]) => v);
  }

  has(name: unknown, value?: unknown): boolean {
    const n = toUSV(name);
    const v = value === undefined ? undefined : toUSV(value);
    return this.#list.some(([k, x]) => k === n && (v === undefined || x === v));
  }

  set(name: unknown, value: unknown): void {
    const n = toUSV(name);
    const v = toUSV(value);
    const i = this.#list.findIndex(([k]) => k === n);
    if (i === -1) this.#list.push([n, v]);
    else this.#list = [...this.#list.slice(0, i), [n, v], ...this.#list.slice(i + 1).filter(([k]) => k !== n)];
    this.#changed();
  }

  sort(): void {
    // stable, by UTF-16 code units of the names
    this.#list = this.#list
      .map((p, i) => [p, i] as const)
      .sort(([a, i], [b, j]) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : i - j))
      .map(([p]) => p);
    this.#changed();
  }

  forEach(callback: (value: string, name: string, params: URLSearchParams) => void, thisArg?: unknown): void {
    if (typeof callback !== 'function') throw new TypeError('The "callback" argument must be of type function');
    for (let i = 0; i < this.#list.length; i++) callback.call(thisArg, this.#list[i]![1], this.#list[i]![0], this);
  }

  *entries(): IterableIterator<[string, string]> {
    for (let i = 0; i < this.#list.length; i++) yield [this.#list[i]![0], this.#list[i]![1]];
  }

  *keys(): IterableIterator<string> {
    for (const [k] of this.entries()) yield k;
  }

  *values(): IterableIterator<string> {
    for (const [, v] of this.entries()) yield v;
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }

  toString(): string {
    return this.#list.map(([k, v]) => `${encodeForm(k)}=${encodeForm(v)}`).join('&');
  }

  get [Symbol.toStringTag](): string {
    return 'URLSearchParams';
  }
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

  class URL {
    #parts: Parts;
    #params: URLSearchParams;

    constructor(input: unknown, base?: unknown) {
      if (arguments.length === 0) throw new TypeError('The "url" argument must be specified');
      this.#parts = call<Parts>('parse', [String(input), base === undefined ? undefined : String(base)]);
      this.#params = new URLSearchParams(this.#parts.search);
      this.#params[kUpdate] = () => {
        const query = this.#params.toString();
        this.#parts = call<Parts>('set', [this.#parts.href, 'search', query]);
      };
    }

    static canParse(input: unknown, base?: unknown): boolean {
      return !isError(bridge.url('parse', [String(input), base === undefined ? undefined : String(base)]));
    }

    #set(prop: keyof Parts, value: unknown): void {
      this.#parts = call<Parts>('set', [this.#parts.href, prop, String(value)]);
      if (prop === 'search') URLSearchParams.reset(this.#params, this.#parts.search);
    }

    get href(): string {
      return this.#parts.href;
    }
    set href(value: string) {
      this.#parts = call<Parts>('parse', [String(value)]);
      URLSearchParams.reset(this.#params, this.#parts.search);
    }
    get origin(): string {
      return this.#parts.origin;
    }
    get protocol(): string {
      return this.#parts.protocol;
    }
    set protocol(v: string) {
      this.#set('protocol', v);
    }
    get username(): string {
      return this.#parts.username;
    }
    set username(v: string) {
      this.#set('username', v);
    }
    get password(): string {
      return this.#parts.password;
    }
    set password(v: string) {
      this.#set('password', v);
    }
    get host(): string {
      return this.#parts.host;
    }
    set host(v: string) {
      this.#set('host', v);
    }
    get hostname(): string {
      return this.#parts.hostname;
    }
    set hostname(v: string) {
      this.#set('hostname', v);
    }
    get port(): string {
      return this.#parts.port;
    }
    set port(v: string) {
      this.#set('port', v);
    }
    get pathname(): string {
      return this.#parts.pathname;
    }
    set pathname(v: string) {
      this.#set('pathname', v);
    }
    get search(): string {
      return this.#parts.search;
    }
    set search(v: string) {
      this.#set('search', v);
    }
    get searchParams(): URLSearchParams {
      return this.#params;
    }
    get hash(): string {
      return this.#parts.hash;
    }
    set hash(v: string) {
      this.#set('hash', v);
    }
    toString(): string {
      return this.#parts.href;
    }
    toJSON(): string {
      return this.#parts.href;
    }
    get [Symbol.toStringTag](): string {
      return 'URL';
    }
  }

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

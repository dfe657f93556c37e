import { Buffer } from 'buffer';

/**
 * `URLSearchParams` for mappings: plain form-urlencoded text handling, run inside the sandbox
 * (a URL owning one is told of its changes through `kUpdate`).
 */

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

/** The hook by which a URL hears its search params changed. */
export const kUpdate = Symbol('update');

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

import { kUpdate, URLSearchParams } from './url-search-params.ts';

/** A URL's parts, as the host's Node parses them (url-host.ts). */
export interface Parts {
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

/** A parse or an update crossing to the host; a refusal throws there as Node's would. */
export type HostCall = <T>(op: string, args: unknown[]) => T;

/** The WHATWG `URL` class of the sandbox: every parse and update crosses to the host, the parts are kept here. */
export function createUrlClass(call: HostCall, canParse: (input: string, base: string | undefined) => boolean) {
  return class URL {
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
      return canParse(String(input), base === undefined ? undefined : String(base));
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
  };
}

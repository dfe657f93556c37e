import { domainToASCII, domainToUnicode, fileURLToPath, format, parse, pathToFileURL, resolve, URL } from 'node:url';

/**
 * The host half of the sandbox's `url`: parsing and serializing run in Node's own URL code (one
 * synchronous crossing each), so `URL` and the legacy `url.parse`/`format`/`resolve` behave
 * exactly as in Node; the isolate keeps only the results (isolate/builtins/url.ts).
 * Plain data in and out; a failure comes back as `{ error }` for the isolate to throw.
 */
export type UrlOp =
  'parse' | 'set' | 'legacyParse' | 'format' | 'formatURL' | 'resolve' | 'domainToASCII' | 'domainToUnicode' | 'pathToFileURL' | 'fileURLToPath';

const PARTS = ['href', 'origin', 'protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash'] as const;
const SETTABLE = new Set(['protocol', 'username', 'password', 'host', 'hostname', 'port', 'pathname', 'search', 'hash']);
const LEGACY = ['protocol', 'slashes', 'auth', 'host', 'port', 'hostname', 'hash', 'search', 'query', 'pathname', 'path', 'href'] as const;

const parts = (u: URL) => Object.fromEntries(PARTS.map((k) => [k, u[k]]));

export function urlHostCall(op: UrlOp, args: unknown[]): unknown {
  try {
    switch (op) {
      case 'parse':
        return parts(args[1] === undefined ? new URL(String(args[0])) : new URL(String(args[0]), String(args[1])));
      case 'set': {
        const u = new URL(String(args[0]));
        const prop = String(args[1]);
        if (SETTABLE.has(prop)) (u as unknown as Record<string, string>)[prop] = String(args[2]);
        return parts(u);
      }
      case 'legacyParse': {
        const u = parse(String(args[0]), args[1] === true, args[2] === true) as unknown as Record<string, unknown>;
        return Object.fromEntries(LEGACY.map((k) => [k, u[k] === undefined ? null : u[k]]));
      }
      case 'format':
        return format(args[0] as string);
      case 'formatURL':
        return format(new URL(String(args[0])), (args[1] ?? {}) as object);
      case 'resolve':
        return resolve(String(args[0]), String(args[1]));
      case 'domainToASCII':
        return domainToASCII(String(args[0]));
      case 'domainToUnicode':
        return domainToUnicode(String(args[0]));
      case 'pathToFileURL':
        return pathToFileURL(String(args[0])).href;
      case 'fileURLToPath':
        return fileURLToPath(String(args[0]));
    }
    return { error: { name: 'TypeError', message: `unknown url operation ${String(op)}` } };
  } catch (err) {
    const e = err as Error & { code?: string; input?: string };
    return { error: { name: e.name, message: e.message, code: e.code, input: e.input } };
  }
}

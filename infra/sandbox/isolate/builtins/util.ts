import { isDeepEqual } from './deep-equal.ts';
import { TextDecoder, TextEncoder } from './text-codec.ts';

/**
 * The parts of Node's `util` mappings use (`format`, `inspect`, `inherits`, `promisify`,
 * `isDeepStrictEqual`, `types`, `TextEncoder`/`TextDecoder`). The npm `util` package is not
 * installed, so this is written out; `inspect` output follows Node's layout on one line.
 */

interface InspectOptions {
  depth?: number | null;
}

function inspect(value: unknown, options: InspectOptions = {}): string {
  const depth = options.depth === null ? Infinity : (options.depth ?? 2);
  return show(value, depth, new Set(), false);
}

function show(value: unknown, depth: number, seen: Set<unknown>, nested: boolean): string {
  switch (typeof value) {
    case 'string':
      return nested ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'").replace(/\n/g, '\\n')}'` : value;
    case 'bigint':
      return `${value}n`;
    case 'symbol':
      return value.toString();
    case 'function':
      return `[Function: ${value.name || '(anonymous)'}]`;
    case 'undefined':
      return 'undefined';
    case 'object':
      break;
    default:
      return Object.is(value, -0) ? '-0' : String(value);
  }
  if (value === null) return 'null';
  if (seen.has(value)) return '[Circular]';
  if (value instanceof Error) return value.stack ?? `${value.name}: ${value.message}`;
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
  if (value instanceof RegExp) return String(value);
  if (typeof (value as { _isBigNumber?: unknown })._isBigNumber === 'boolean')
    return `BigNumber { _hex: '${(value as { _hex: string })._hex}', _isBigNumber: true }`;
  if (depth < 0) return Array.isArray(value) ? '[Array]' : '[Object]';
  seen.add(value);
  try {
    const inner = (v: unknown) => show(v, depth - 1, seen, true);
    if (Array.isArray(value)) {
      const items = value.map(inner);
      for (const k of Object.keys(value)) if (!/^\d+$/.test(k)) items.push(`${k}: ${inner((value as unknown as Record<string, unknown>)[k])}`);
      return items.length === 0 ? '[]' : `[ ${items.join(', ')} ]`;
    }
    if (value instanceof Map) return `Map(${value.size}) { ${[...value].map(([k, v]) => `${inner(k)} => ${inner(v)}`).join(', ')} }`;
    if (value instanceof Set) return `Set(${value.size}) { ${[...value].map(inner).join(', ')} }`;
    if (ArrayBuffer.isView(value)) {
      const name = value.constructor?.name ?? 'TypedArray';
      return `${name}(${(value as unknown as ArrayLike<number>).length}) [ ${Array.from(value as unknown as ArrayLike<number>).join(', ')} ]`;
    }
    const entries = Object.keys(value).map((k) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : `'${k}'`}: ${inner((value as Record<string, unknown>)[k])}`);
    const ctor = Object.getPrototypeOf(value)?.constructor?.name;
    const prefix = ctor && ctor !== 'Object' ? `${ctor} ` : '';
    return entries.length === 0 ? `${prefix}{}` : `${prefix}{ ${entries.join(', ')} }`;
  } finally {
    seen.delete(value);
  }
}

function format(first?: unknown, ...args: unknown[]): string {
  if (typeof first !== 'string') return [first, ...args].map((a) => show(a, 2, new Set(), typeof a === 'string' ? false : true)).join(' ');
  let i = 0;
  let out = first.replace(/%([sdifjoOc%])/g, (match, ch: string) => {
    if (ch === '%') return '%';
    if (i >= args.length) return match;
    const arg = args[i++];
    switch (ch) {
      case 's':
        return typeof arg === 'string'
          ? arg
          : typeof arg === 'bigint'
            ? `${arg}n`
            : typeof arg === 'object' && arg !== null
              ? show(arg, 1, new Set(), true)
              : String(arg);
      case 'd':
        return typeof arg === 'bigint' ? `${arg}n` : String(Number(arg));
      case 'i':
        return typeof arg === 'bigint' ? `${arg}n` : String(parseInt(String(arg), 10));
      case 'f':
        return String(parseFloat(String(arg)));
      case 'j':
        try {
          return JSON.stringify(arg);
        } catch {
          return '[Circular]';
        }
      case 'c':
        return '';
      default:
        return show(arg, 4, new Set(), true);
    }
  });
  for (; i < args.length; i++) {
    const arg = args[i];
    out += ` ${typeof arg === 'string' ? arg : show(arg, 2, new Set(), true)}`;
  }
  return out;
}

function inherits(ctor: { prototype: object; super_?: unknown }, superCtor: { prototype: object }): void {
  Object.defineProperty(ctor, 'super_', { value: superCtor, writable: true, configurable: true });
  Object.setPrototypeOf(ctor.prototype, superCtor.prototype);
}

const custom = Symbol.for('nodejs.util.promisify.custom');

function promisify(fn: (...args: never[]) => unknown): (...args: unknown[]) => Promise<unknown> {
  const own = (fn as unknown as Record<symbol, unknown>)[custom];
  if (typeof own === 'function') return own as (...args: unknown[]) => Promise<unknown>;
  return function (this: unknown, ...args: unknown[]) {
    return new Promise((resolve, reject) => {
      (fn as (...a: unknown[]) => unknown).call(this, ...args, (err: unknown, value: unknown) => (err ? reject(err) : resolve(value)));
    });
  };
}

function deprecate<T extends (...args: never[]) => unknown>(fn: T): T {
  return fn;
}

const types = {
  isDate: (v: unknown): v is Date => v instanceof Date,
  isRegExp: (v: unknown): v is RegExp => v instanceof RegExp,
  isPromise: (v: unknown): v is Promise<unknown> => v instanceof Promise,
  isMap: (v: unknown) => v instanceof Map,
  isSet: (v: unknown) => v instanceof Set,
  isTypedArray: (v: unknown) => ArrayBuffer.isView(v) && !(v instanceof DataView),
  isUint8Array: (v: unknown) => v instanceof Uint8Array,
  isArrayBuffer: (v: unknown) => v instanceof ArrayBuffer,
  isNativeError: (v: unknown) => v instanceof Error,
  isBigInt64Array: (v: unknown) => v instanceof BigInt64Array,
};

export const util = {
  format,
  inspect: Object.assign(inspect, { custom: Symbol.for('nodejs.util.inspect.custom') }),
  inherits,
  promisify: Object.assign(promisify, { custom }),
  deprecate,
  isDeepStrictEqual: (a: unknown, b: unknown) => isDeepEqual(a, b, true),
  types,
  TextEncoder,
  TextDecoder,
  isArray: Array.isArray,
  isBoolean: (v: unknown) => typeof v === 'boolean',
  isNull: (v: unknown) => v === null,
  isNullOrUndefined: (v: unknown) => v === null || v === undefined,
  isNumber: (v: unknown) => typeof v === 'number',
  isString: (v: unknown) => typeof v === 'string',
  isUndefined: (v: unknown) => v === undefined,
  isObject: (v: unknown) => v !== null && typeof v === 'object',
  isFunction: (v: unknown) => typeof v === 'function',
  isPrimitive: (v: unknown) => v === null || (typeof v !== 'object' && typeof v !== 'function'),
  isDate: types.isDate,
  isRegExp: types.isRegExp,
  isError: types.isNativeError,
};

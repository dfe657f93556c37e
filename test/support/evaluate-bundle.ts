import { createRequire } from 'node:module';
import { runInContext, createContext } from 'node:vm';
import { SANDBOX_MODULES } from '../../domain/mapping/sandbox-modules.ts';

/** One store call a handler made, e.g. `['set', 'Transfer', id, {…}]`. */
export type StoreCall = [method: string, ...args: unknown[]];

export interface FakeStore {
  calls: StoreCall[];
  /** entity → id → record, as the handlers left it */
  data: Map<string, Map<string, Record<string, unknown>>>;
  api: Record<string, (...args: any[]) => Promise<unknown>>;
}

/**
 * An in-memory `store` global with SubQuery's methods that records every call, for running built
 * handlers in tests as the sandbox would (records are copied, as crossing the isolate copies them).
 */
export function createFakeStore(): FakeStore {
  const calls: StoreCall[] = [];
  const data = new Map<string, Map<string, Record<string, unknown>>>();
  const table = (entity: string) => data.get(entity) ?? data.set(entity, new Map()).get(entity)!;
  const copy = (r: object) => ({ ...r }) as Record<string, unknown>;
  const api = {
    async get(entity: string, id: string) {
      calls.push(['get', entity, id]);
      const r = table(entity).get(id);
      return r === undefined ? undefined : copy(r);
    },
    async getByField(entity: string, field: string, value: unknown, options?: unknown) {
      calls.push(['getByField', entity, field, value, options]);
      return [...table(entity).values()].filter((r) => r[field] === value).map(copy);
    },
    async getOneByField(entity: string, field: string, value: unknown) {
      calls.push(['getOneByField', entity, field, value]);
      const r = [...table(entity).values()].find((x) => x[field] === value);
      return r === undefined ? undefined : copy(r);
    },
    async getByFields(entity: string, filter: unknown, options?: unknown) {
      calls.push(['getByFields', entity, filter, options]);
      return [];
    },
    async set(entity: string, id: string, record: object) {
      calls.push(['set', entity, id, copy(record)]);
      table(entity).set(id, copy(record));
    },
    async remove(entity: string, id: string) {
      calls.push(['remove', entity, id]);
      table(entity).delete(id);
    },
  };
  return { calls, data, api };
}

/**
 * Evaluates a built bundle the way the sandbox does: as the body of
 * `(function (module, exports, require) { … })` in a fresh context holding only `globals`, with
 * `require` limited to the sandbox's modules. Returns `module.exports`.
 */
export function evaluateBundle(code: string, globals: Record<string, unknown>, filename = 'index.js'): Record<string, unknown> {
  // the web globals the sandbox also gives mappings (libraries such as viem use them when loaded)
  const context = createContext({ TextEncoder, TextDecoder, ...globals });
  // the newline and lineOffset keep the bundle's own line and column numbers, as the sandbox does
  const fn = runInContext(`(function (module, exports, require) {\n${code}\n})`, context, { filename, lineOffset: -1 }) as (
    module: { exports: Record<string, unknown> },
    exports: Record<string, unknown>,
    require: (name: string) => unknown,
  ) => void;
  const hostRequire = createRequire(import.meta.url);
  const module = { exports: {} as Record<string, unknown> };
  fn(module, module.exports, (name) => {
    if (!SANDBOX_MODULES.includes(name)) throw new Error(`the sandbox does not provide "${name}"`);
    return hostRequire(name);
  });
  return module.exports;
}

/** A logger global that keeps what handlers log. */
export function createFakeLogger(): { lines: string[]; api: Record<string, (m: unknown) => void> } {
  const lines: string[] = [];
  const log = (level: string) => (m: unknown) => void lines.push(`${level} ${String(m)}`);
  return { lines, api: { trace: log('trace'), debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error'), fatal: log('fatal') } };
}

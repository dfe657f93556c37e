import { Buffer } from 'buffer';
import { atob, btoa } from './builtins/base64.ts';
import { TextDecoder, TextEncoder } from './builtins/text-codec.ts';
import type { createUrl } from './builtins/url.ts';
import { timerGlobals } from './timers.ts';

/** The globals every mapping gets beside its family's `api`: SubQuery's `store`, `logger`, `cache`, … and the web platform's few. */
export function sandboxGlobals(parts: {
  g: Record<string, unknown>;
  store: unknown;
  logger: unknown;
  console: unknown;
  api: unknown;
  chainId: string;
  createDynamicDatasource: (template: string, args: Record<string, unknown>) => Promise<void>;
  url: ReturnType<typeof createUrl>;
}): Record<string, unknown> {
  const cacheMap = new Map<unknown, unknown>();
  const cache = {
    get: async (key: unknown) => cacheMap.get(key),
    set: async (key: unknown, value: unknown) => {
      cacheMap.set(key, value);
    },
  };
  return {
    store: parts.store,
    logger: parts.logger,
    console: parts.console,
    api: parts.api,
    chainId: parts.chainId,
    createDynamicDatasource: parts.createDynamicDatasource,
    cache,
    Buffer,
    TextEncoder,
    TextDecoder,
    URL: parts.url.URL,
    URLSearchParams: parts.url.URLSearchParams,
    ...timerGlobals,
    atob,
    btoa,
    global: parts.g,
  };
}

/** Sets globals as the sandbox's own: writable and configurable (a mapping may replace them), not enumerable. */
export function defineGlobals(g: Record<string, unknown>, globals: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(globals)) Object.defineProperty(g, k, { value: v, writable: true, configurable: true, enumerable: false });
}

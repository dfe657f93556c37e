import { isAbsolute, join, resolve } from 'node:path';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { CacheRules } from '../../../infra/rpc/cache/cacheable-call.ts';
import { cachedClient, type RpcCacheCounts } from '../../../infra/rpc/cache/cached-client.ts';
import { openRpcCacheStore, type RpcCacheStore } from '../../../infra/rpc/cache/rpc-cache-store.ts';
import type { ClientLayer } from './chain-clients.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** What a `--workers` thread needs to open the same cache (it cannot share this thread's objects). */
export interface RpcCacheWorkerSettings {
  root: string;
  chain: string;
  maxBytes: number;
}

/** The node's RPC cache: a layer for every client of the chain, opened once the chain's genesis is known. */
export interface RpcCacheLayer {
  readonly root: string;
  layer: ClientLayer;
  /** Opens the chain's part of the cache; until then every call goes to the endpoints (checking the chain always does). */
  bind(genesisHash: string): Promise<void>;
  /** the settings a fetch thread opens the cache with, once bound */
  worker(): RpcCacheWorkerSettings | undefined;
  /** the highest height known final */
  finalized(): number;
  counts: RpcCacheCounts;
  /** waits for the writes under way */
  close(): Promise<void>;
}

/**
 * Where the cache lives by default, machine-wide so that every project over a chain shares it:
 * `$XDG_CACHE_HOME/idx/rpc`, else `~/.cache/idx/rpc`; none without either variable (as the tests'
 * programs run, so they never write to a user's cache unless a test asks for it).
 */
export function defaultRpcCacheRoot(env: Env): string | undefined {
  if (env.XDG_CACHE_HOME) return join(env.XDG_CACHE_HOME, 'idx', 'rpc');
  if (env.HOME) return join(env.HOME, '.cache', 'idx', 'rpc');
  return undefined;
}

/** `--rpc-cache`'s directory: the one given (from the working directory), the default, or none (`false`). */
export function rpcCacheRoot(setting: string | boolean, env: Env): string | undefined {
  if (setting === false) return undefined;
  if (setting === true) return defaultRpcCacheRoot(env);
  return isAbsolute(setting) ? setting : resolve(setting);
}

/** The RPC cache under `root` for a family's `rules`, keeping answers final by `finalized()`. */
export function createRpcCacheLayer(root: string, maxBytes: number, rules: CacheRules, finalized: () => number, log: Logger): RpcCacheLayer {
  let store: RpcCacheStore | undefined;
  let chain: string | undefined;
  const counts: RpcCacheCounts = { served: 0, fetched: 0, kept: 0 };
  return {
    root,
    layer: (client) => cachedClient(client, { rules, store: () => store, finalized, counts }),
    async bind(genesisHash) {
      chain = genesisHash;
      store = await openRpcCacheStore({
        root,
        chain: genesisHash,
        maxBytes,
        onWriteError: (err) => log.warn(`the RPC cache in ${root} cannot be written (${err.message}); indexing goes on without keeping answers`),
      });
      log.debug(`RPC cache: ${store.dir}`);
    },
    worker: () => (chain === undefined ? undefined : { root, chain, maxBytes }),
    finalized,
    counts,
    async close() {
      await store?.flush();
      if (store !== undefined)
        log.info(`RPC cache: ${counts.served} calls answered from ${root}, ${counts.fetched} asked of the endpoints (${counts.kept} answers kept)`);
    },
  };
}

import { endpointTarget, type EndpointTarget } from './endpoint-target.ts';

export interface Endpoint {
  url: string;
  headers?: Record<string, string>;
}

/** An endpoint as the pool hands it out: where requests go (credentials as a header), and its printable name. */
export type PooledEndpoint = EndpointTarget;

export interface EndpointPool {
  readonly endpoints: readonly PooledEndpoint[];
  /**
   * The next endpoint to use, skipping `exclude`: healthy ones in turn (round-robin spreads the
   * load), else the one whose cooldown ends first, so a pool of only cooling endpoints still
   * answers. undefined when every endpoint is excluded.
   */
  pick(exclude: ReadonlySet<PooledEndpoint>): PooledEndpoint | undefined;
  /** The endpoint failed: cool it down, longer after each consecutive failure. */
  markFailed(endpoint: PooledEndpoint): void;
  markOk(endpoint: PooledEndpoint): void;
}

export interface EndpointPoolOptions {
  /** first cooldown after a failure; doubles with each consecutive failure */
  cooldownMs: number;
  maxCooldownMs: number;
  now?: () => number;
}

export function createEndpointPool(endpoints: readonly Endpoint[], options: EndpointPoolOptions): EndpointPool {
  const now = options.now ?? Date.now;
  const pooled: PooledEndpoint[] = endpoints.map((e) => endpointTarget(e.url, e.headers));
  const health = new Map(pooled.map((e) => [e, { failures: 0, coolUntil: 0 }]));
  let cursor = 0;

  return {
    endpoints: pooled,
    pick(exclude) {
      const t = now();
      for (let i = 0; i < pooled.length; i++) {
        const e = pooled[(cursor + i) % pooled.length]!;
        if (exclude.has(e) || health.get(e)!.coolUntil > t) continue;
        cursor = (cursor + i + 1) % pooled.length;
        return e;
      }
      let best: PooledEndpoint | undefined;
      for (const e of pooled) {
        if (exclude.has(e)) continue;
        if (best === undefined || health.get(e)!.coolUntil < health.get(best)!.coolUntil) best = e;
      }
      return best;
    },
    markFailed(e) {
      const h = health.get(e)!;
      h.failures++;
      h.coolUntil = now() + Math.min(options.maxCooldownMs, options.cooldownMs * 2 ** (h.failures - 1));
    },
    markOk(e) {
      const h = health.get(e)!;
      h.failures = 0;
      h.coolUntil = 0;
    },
  };
}

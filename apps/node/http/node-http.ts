import Router from '@koa/router';
import Koa from 'koa';
import type { Registry } from 'prom-client';

/**
 * The `/meta` document (docs/usage.md "HTTP endpoints"). Units as SubQuery
 * reports them: timestamps in milliseconds since the epoch, `uptime` in seconds, `blockTime`
 * in milliseconds (the average over the recent processed blocks, once two are known). Heights
 * appear once known; `lastProcessedHeight` once a block is processed.
 */
export interface MetaDocument {
  currentProcessingHeight?: number;
  currentProcessingTimestamp?: number;
  targetHeight?: number;
  bestHeight?: number;
  indexerNodeVersion: string;
  lastProcessedHeight?: number;
  lastProcessedTimestamp?: number;
  uptime: number;
  chainSdkVersion: string;
  apiConnected: boolean;
  injectedApiConnected: boolean;
  usingDictionary: boolean;
  chain?: string;
  specName?: string;
  genesisHash?: string;
  blockTime?: number;
}

export type Health = { healthy: true } | { healthy: false; error: string };

/** What the HTTP endpoints read; the indexer keeps it current. */
export interface NodeStatus {
  health(): Health;
  meta(): MetaDocument;
  /** caught up with the chain head */
  ready(): boolean;
}

/** `--status-page`: the page for browsers and the figures it polls. */
export interface StatusPage {
  html: string;
  document(): Promise<unknown>;
}

/**
 * `GET /health`, `/meta`, `/ready`, `/metrics`; with `statusPage`, also `/` for browsers (a
 * request that accepts HTML before JSON) and `/status`. Anything else is SubQuery's 404 body.
 */
export function createNodeHttpApp(status: NodeStatus, metrics: Registry, statusPage?: StatusPage): Koa {
  const router = new Router();
  router.get('/health', (ctx) => {
    const h = status.health();
    if (h.healthy) {
      ctx.body = {};
    } else {
      ctx.status = 500;
      ctx.body = { status: 500, error: h.error };
    }
  });
  router.get('/meta', (ctx) => {
    ctx.body = status.meta();
  });
  // Beyond SubQuery: for load balancers and orchestrators that wait for a caught-up node.
  router.get('/ready', (ctx) => {
    const ready = status.ready();
    ctx.status = ready ? 200 : 503;
    ctx.body = { ready };
  });
  router.get('/metrics', async (ctx) => {
    ctx.type = metrics.contentType;
    ctx.body = await metrics.metrics();
  });

  if (statusPage !== undefined) {
    // Only browsers get the page: a script or monitor asking `/` (Accept: */* or JSON) still gets the reference's 404.
    router.get('/', async (ctx, next) => {
      if (ctx.accepts('json', 'html') !== 'html') return next();
      ctx.type = 'text/html; charset=utf-8';
      ctx.set('Cache-Control', 'no-store');
      ctx.body = statusPage.html;
    });
    router.get('/status', async (ctx) => {
      ctx.set('Cache-Control', 'no-store');
      ctx.body = await statusPage.document();
    });
  }

  const app = new Koa();
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { statusCode: 404, message: `Cannot ${ctx.method} ${ctx.path}`, error: 'Not Found' };
  });
  return app;
}

import { createServer, type Server } from 'node:http';
import cors from '@koa/cors';
import Router from '@koa/router';
import Koa from 'koa';
import type { Logger } from '../../infra/logging/create-logger.ts';
import type { GraphqlRequest, GraphqlResponse } from './execute-request.ts';
import type { QueryService } from './query-service.ts';
import { messageTooLargeText, REQUEST_LIMITS } from './request-limits.ts';

/** The HTTP side of idx-query: a koa app on a node http.Server (graphql-ws attaches to the same server). */
export interface QueryServer {
  app: Koa;
  /** routes added before the GraphQL routes take precedence over them */
  router: Router;
  /** not listening yet; `listenOnFreePort(server, port)` binds it */
  server: Server;
  service: QueryService;
  logger: Logger;
}

/**
 * A part of the service that a flag turns on (the playground, subscriptions). `attach` runs before
 * the GraphQL routes are mounted, so middleware and routes it adds see requests first (e.g. GET /
 * from a browser). `close` runs when the service stops.
 */
export interface QueryServerPlugin {
  name: string;
  attach?(server: QueryServer): void | Promise<void>;
  close?(): void | Promise<void>;
}

export interface CreateQueryServerOptions {
  service: QueryService;
  logger: Logger;
  plugins?: readonly QueryServerPlugin[];
}

async function readJsonBody(ctx: Koa.Context): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    // the rest of the body is not read: the connection cannot carry another request
    if (size > REQUEST_LIMITS.maxMessageBytes) ctx.throw(413, messageTooLargeText(), { headers: { connection: 'close' } });
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  const type = ctx.request.type;
  if (type === 'application/graphql') return { query: text };
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * A GraphQL endpoint: GET (`?query=&variables=&operationName=`) or POST (a JSON body, or the query
 * itself as `application/graphql`), answered by `execute`. Every GraphQL path of the service (the
 * SubQuery dialect, and the Graph dialect of `--subgraph`) goes through it.
 */
export function graphqlHandler(execute: (request: GraphqlRequest) => Promise<GraphqlResponse>): (ctx: Koa.Context) => Promise<void> {
  return async (ctx) => {
    const method = ctx.method === 'GET' ? 'GET' : 'POST';
    let request: Record<string, unknown> = {};
    if (method === 'GET') {
      const q = ctx.query;
      request = { query: q.query, variables: q.variables, operationName: q.operationName };
    } else {
      const body = await readJsonBody(ctx);
      if (typeof body !== 'object' || body === null || Array.isArray(body)) {
        ctx.status = 400;
        ctx.body = { errors: [{ message: 'the request body must be a JSON object with "query"', extensions: { code: 'BAD_REQUEST' } }] };
        return;
      }
      request = body as Record<string, unknown>;
    }
    const res = await execute({ ...request, method });
    ctx.status = res.status;
    ctx.body = res.body;
  };
}

/**
 * GraphQL at `/` and `/graphql` over GET (`?query=&variables=&operationName=`) and POST (JSON),
 * `/health` (the indexer's health with `--indexer`, else the database's), `/ready`, and the 404
 * body of the node for anything else. Every answer carries CORS headers.
 */
export async function createQueryServer(options: CreateQueryServerOptions): Promise<QueryServer> {
  const { service, logger } = options;
  const log = logger.child('http');
  const app = new Koa();
  const router = new Router();
  // koa composes its middleware when the callback is made: make it at the first request, after
  // the plugins and routes below are in place.
  let handle: ReturnType<Koa['callback']> | undefined;
  const server = createServer((req, res) => (handle ??= app.callback())(req, res));
  const qs: QueryServer = { app, router, server, service, logger };

  app.use(async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      if (log.isDebugEnabled()) log.debug(`${ctx.method} ${ctx.path} ${ctx.status} ${(performance.now() - started).toFixed(1)} ms`);
    }
  });
  app.use(cors());
  for (const plugin of options.plugins ?? []) await plugin.attach?.(qs);

  router.get('/health', async (ctx) => {
    const h = await service.health();
    ctx.status = h.healthy ? 200 : 500;
    ctx.body = h.healthy ? {} : { status: 500, error: h.error };
  });
  // Beyond SubQuery, like the node's: 200 once the schema is served and the source is healthy.
  router.get('/ready', async (ctx) => {
    const h = await service.health();
    ctx.status = h.healthy ? 200 : 503;
    ctx.body = { ready: h.healthy };
  });
  const graphql = graphqlHandler((request) => service.execute(request));
  for (const path of ['/', '/graphql']) {
    router.get(path, graphql);
    router.post(path, graphql);
  }
  app.use(router.routes());
  app.use(router.allowedMethods());
  app.use((ctx) => {
    ctx.status = 404;
    ctx.body = { statusCode: 404, message: `Cannot ${ctx.method} ${ctx.path}`, error: 'Not Found' };
  });
  app.on('error', (err: Error & { status?: number }) => {
    if ((err.status ?? 500) >= 500) log.error(`HTTP error: ${err.stack ?? err.message}`);
  });
  return qs;
}

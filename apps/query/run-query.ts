import { existsSync } from 'node:fs';
import { IdxError } from '../../domain/errors.ts';
import { describePortHolder } from '../../infra/http/describe-port-holder.ts';
import { listenOnFreePort } from '../../infra/http/listen-on-free-port.ts';
import { publishServiceUrl } from '../../infra/http/service-url-file.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { join } from 'node:path';
import { createDb, type Db } from '../../infra/postgres/create-db.ts';
import type { SchemaExtension } from './schema/schema-extension.ts';
import { createQueryServer, type QueryServer, type QueryServerPlugin } from './create-query-server.ts';
import type { QueryOptions } from './query-options.ts';
import { createQueryService, type QueryService, type QueryServiceOptions } from './query-service.ts';
import { firstFolder, folderFollower, listenedPointerFollower, openFolderDb } from './deployment-followers.ts';
import { poolErrorLog } from './pool-error-log.ts';

/**
 * What `--playground`, `--subscription` and `--subgraph` plug in: schema additions and server
 * parts. A flag with no plugin that provides it is refused rather than ignored.
 */
export interface QueryFeature extends QueryServerPlugin {
  /** the flag it carries out, e.g. `--playground` */
  flag: FeatureFlag;
  extendSchema?: SchemaExtension;
}

/** Whether each feature's flag is on. */
const FEATURE_FLAGS = {
  '--playground': (o: QueryOptions) => o.playground,
  '--subscription': (o: QueryOptions) => o.subscription,
  '--subgraph': (o: QueryOptions) => o.subgraph,
} as const;

export type FeatureFlag = keyof typeof FEATURE_FLAGS;

export interface RunQueryContext {
  options: QueryOptions;
  logger: Logger;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  /** the database to serve; by default opened from DB_* (tests pass an open PGlite) */
  db?: Db;
  features?: readonly QueryFeature[];
  /** seconds between looks for a changed model (default 5) */
  hotSchemaIntervalMs?: number;
}

export interface RunningQuery {
  port: number;
  url: string;
  server: QueryServer;
  service: QueryService;
  close(): Promise<void>;
}

/**
 * Opens the database of the DB_* variables for the query service: pool of --max-connection,
 * statement timeout of --query-timeout. With DB_HOST_READ the queries go to that server (a read
 * replica), and only subscriptions' LISTEN connects to DB_HOST, where the node's NOTIFY happen.
 */
export async function openQueryDb(options: QueryOptions, env: RunQueryContext['env'], onPoolError: (err: Error) => void, folder = options.idx): Promise<Db> {
  if (!env.DB_HOST) {
    if (env.DB_HOST_READ) throw new IdxError('DB_CONFIG_INVALID', 'DB_HOST_READ names a read replica of the PostgreSQL at DB_HOST; set DB_HOST too');
    // embedded: the node owns its PGlite and serves it on a socket in its data folder (DECISIONS.md)
    return openFolderDb(options.maxConnection, onPoolError)(folder);
  }
  const open = (dbEnv: RunQueryContext['env'], maxConnections: number) =>
    createDb({
      env: dbEnv,
      ssl: { ca: options.pgCa, cert: options.pgCert, key: options.pgKey },
      maxConnections,
      statementTimeoutMs: options.queryTimeout,
      applicationName: 'idx-query',
      onPoolError,
    });
  if (!env.DB_HOST_READ) return open(env, options.maxConnection);
  // the primary is opened only to check it answers and to know how to LISTEN on it
  const primary = await open(env, 1);
  await primary.close();
  const read = await open(readReplicaEnv(env), options.maxConnection).catch((err: unknown) => {
    throw replicaError(err, env);
  });
  return { ...read, description: `${read.description} (a read replica; LISTEN on ${primary.description})`, connection: primary.connection };
}

/**
 * A failure to open the read replica in the variables that set it: the replica's settings come
 * from DB_HOST_READ (and DB_*_READ where given), so a message naming DB_HOST would send the user to
 * the primary, which answered.
 */
function replicaError(err: unknown, env: RunQueryContext['env']): unknown {
  if (!(err instanceof IdxError)) return err;
  const named = err.message.replace(/\bDB_(HOST|PORT|USER|PASS|DATABASE)\b(?!_READ)/g, (name: string, key: string) =>
    key === 'HOST' || env[`${name}_READ`] ? `${name}_READ` : name,
  );
  return new IdxError(err.code, `the read replica (DB_HOST_READ=${env.DB_HOST_READ}): ${named}`, { cause: err, retryable: err.retryable });
}

/** DB_HOST_READ, and DB_PORT_READ, DB_USER_READ, DB_PASS_READ, DB_DATABASE_READ where they differ from the primary's. */
export function readReplicaEnv(env: RunQueryContext['env']): RunQueryContext['env'] {
  const pick = (key: string) => env[`${key}_READ`] || env[key];
  return { DB_HOST: env.DB_HOST_READ, DB_PORT: pick('DB_PORT'), DB_USER: pick('DB_USER'), DB_PASS: pick('DB_PASS'), DB_DATABASE: pick('DB_DATABASE') };
}

/**
 * How `-n` follows a deployment: on PostgreSQL the pointer row, heard at once by LISTEN; on the
 * embedded database the served folder's pointer file, heard by a watch on its data folder.
 */
function followerOf(ctx: RunQueryContext, db: Db, home: string, onPoolError: (err: Error) => void): Pick<QueryServiceOptions, 'follower'> {
  const { options, logger } = ctx;
  if (ctx.db !== undefined) return {};
  if (!ctx.env.DB_HOST) {
    const open = openFolderDb(options.maxConnection, onPoolError);
    return { follower: folderFollower({ folder: options.idx, name: options.name, db, home, open, logger }) };
  }
  return db.connection === undefined ? {} : { follower: listenedPointerFollower(db, options.name, logger) };
}

/** `idx-query`: reads the model the node stored, builds the GraphQL schema and serves it until closed. */
export async function runQuery(ctx: RunQueryContext): Promise<RunningQuery> {
  const { options, logger } = ctx;
  const log = logger.child('query');
  const features = ctx.features ?? [];
  const missing = (Object.keys(FEATURE_FLAGS) as FeatureFlag[]).filter((flag) => FEATURE_FLAGS[flag](options) && !features.some((f) => f.flag === flag));
  if (missing.length > 0)
    throw new IdxError(
      'OPTION_NOT_AVAILABLE',
      `${missing.join(', ')}: not available in this version of idx-query yet; run without ${missing.length === 1 ? 'it' : 'them'}`,
    );
  // features whose flag is off stay out
  const enabled = features.filter((f) => FEATURE_FLAGS[f.flag](options));

  // embedded: the served folder's pointer may name another folder's database (blue/green)
  const embedded = ctx.db === undefined && !ctx.env.DB_HOST;
  const home = embedded ? await firstFolder(options.idx) : options.idx;
  const pool = poolErrorLog(logger);
  const db = ctx.db ?? (await openQueryDb(options, ctx.env, pool.onPoolError, home));
  const ownsDb = ctx.db === undefined;
  let service: QueryService | undefined;
  try {
    // Through the node's socket the driver is pg, but the database behind it is still PGlite.
    if (db.kind === 'pglite' || !ctx.env.DB_HOST)
      log.info(
        'serving an embedded PGlite database: past --query-timeout a request answers QUERY_TIMEOUT, but its running statement cannot be cancelled (PGlite) and ends in the background',
      );
    service = await createQueryService({
      db,
      schema: options.name,
      settings: { aggregate: options.aggregate, unsafe: options.unsafe, queryLimit: options.queryLimit, queryTimeoutMs: options.queryTimeout },
      queryComplexity: options.queryComplexity,
      indexer: options.indexer,
      ...(embedded && { embeddedProject: home }),
      hotSchema: !options.disableHotSchema,
      hotSchemaIntervalMs: ctx.hotSchemaIntervalMs,
      ...followerOf(ctx, db, home, pool.onPoolError),
      version: ctx.version,
      logger,
      extensions: enabled.flatMap((f) => (f.extendSchema ? [f.extendSchema] : [])),
    });
    const server = await createQueryServer({ service, logger, plugins: enabled });
    const port = await listenOnFreePort(server.server, options.port);
    const url = `http://localhost:${port}`;
    const { tables } = service.current();
    const served = service.target().schema === options.name ? `schema "${options.name}"` : `deployment "${options.name}" (schema "${service.target().schema}")`;
    log.info(`serving GraphQL for ${served} of ${db.description} (${tables.size} entities) at ${url}/`);
    if (port !== options.port) {
      log.warn(`port ${options.port} is ${await describePortHolder(options.port)}; serving on port ${port} instead (choose one with --port)`, {
        event: 'port-busy',
        busyPort: options.port,
        port,
      });
    }
    // embedded: the node on the same project links its status page to this playground
    const dataDir = join(options.idx, '.idx-data');
    const unpublish =
      ownsDb && !ctx.env.DB_HOST && existsSync(dataDir)
        ? await publishServiceUrl(dataDir, 'idx-query', { url, page: options.playground }).catch(() => undefined)
        : undefined;
    const running = service;
    return {
      port,
      url,
      server,
      service,
      async close() {
        pool.closing();
        await new Promise<void>((resolve) => {
          server.server.close(() => resolve());
          server.server.closeAllConnections();
        });
        await unpublish?.();
        for (const f of enabled) await f.close?.();
        await running.close();
        if (ownsDb) await db.close();
      },
    };
  } catch (err) {
    pool.closing();
    await service?.close();
    if (ownsDb) await db.close().catch(() => {});
    throw err;
  }
}

import type { Db } from '../../infra/postgres/create-db.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { readDeployment } from '../../infra/postgres/deployment-pointer.ts';
import { readStoredProject } from '../../infra/postgres/read-stored-project.ts';
import { PING } from '../../infra/postgres/read/ping.ts';
import { execute } from '../../infra/postgres/sql.ts';
import { buildSchema, type BuiltSchema } from './build-schema.ts';
import type { SchemaExtension } from './schema/schema-extension.ts';
import { DocumentCache, executeRequest, type GraphqlRequest, type GraphqlResponse } from './execute-request.ts';
import type { DatabasePlace } from './database-unavailable.ts';
import { createQueryContext, type QueryContext, type QuerySettings } from './query-context.ts';
import { indexerHealthAt, storedMetadata } from './stored-metadata.ts';

export interface QueryServiceOptions {
  db: Db;
  /** the project's database schema (`-n/--name`) */
  schema: string;
  settings: QuerySettings;
  /** `--query-complexity` */
  queryComplexity: number;
  /** `--indexer`: the node's base URL, for /health, /meta and readiness */
  indexer?: string;
  /** embedded: the project folder whose idx-node serves the database (for the error when it is stopped) */
  embeddedProject?: string;
  /** rebuild the schema when the node's model changes (not with `--disable-hot-schema`) */
  hotSchema: boolean;
  /** how often to look for a changed model (default 5 s) */
  hotSchemaIntervalMs?: number;
  /**
   * where `-n` is served from, when it names a deployment: by default a pointer row in `db`
   * (PostgreSQL), looked at by the timer; run-query adds LISTEN, or a pointer file on the embedded
   * database, whose versions are in other folders' databases
   */
  follower?: DeploymentFollower;
  version: string;
  logger: Logger;
  extensions?: readonly SchemaExtension[];
}

export type Health = { healthy: true } | { healthy: false; error: string };

/** Where requests are answered from: a schema in a database. */
export interface Placement {
  readonly schema: string;
  readonly db: Db;
  /** the embedded database's project folder, for the error when its node is stopped */
  readonly embeddedProject?: string;
}

/** How `-n` is followed when a deployment of that name moves (blue/green, docs/deploy.md). */
export interface DeploymentFollower {
  /** where the name points now; `current`, the placement served, lets a follower keep using its database */
  locate(current: Placement | undefined): Promise<Placement>;
  /** hears a move at once; returns how to stop. Without it, the timer looks. */
  listen?(heard: () => void): Promise<() => Promise<void>>;
  /** a placement no longer served (requests that took it have had --query-timeout to end): closes what the follower opened for it */
  release?(placement: Placement): Promise<void>;
}

/** PostgreSQL: the pointer row of `name` in the database served, else the schema of that name. */
export function pointerRowFollower(db: Db, name: string, embeddedProject?: string): DeploymentFollower {
  return {
    async locate() {
      const schema = (await readDeployment(db.kysely, name)) ?? name;
      return { schema, db, ...(embeddedProject !== undefined && { embeddedProject }) };
    },
  };
}

const samePlacement = (a: Placement, b: Placement) => a.schema === b.schema && a.db === b.db;

/**
 * What one request is answered from: the schema served and the GraphQL schema built from it. A
 * deployment switch replaces the whole object, so a request that took one finishes on it.
 */
export interface ServedTarget extends Placement {
  readonly built: BuiltSchema;
  /** a context for one request or subscription on this target */
  createContext(): QueryContext;
}

/** A deployment switch: `-n` now serves `to.schema`; requests and subscriptions on `from` finish there. */
export interface DeploymentSwitch {
  from: ServedTarget;
  to: ServedTarget;
  /** ms from hearing of the new pointer to serving it */
  tookMs: number;
}

/**
 * The query service without its HTTP server: the current GraphQL schema (rebuilt when the node
 * changes the model, or when `-n` names a deployment that is promoted to another schema),
 * per-request contexts, request execution, metadata and health. The server, the playground and
 * graphql-ws subscriptions all go through it.
 */
export interface QueryService {
  /** `-n/--name`: a schema, or a deployment pointing at one */
  readonly schemaName: string;
  readonly settings: QuerySettings;
  /** the schema now; it changes when the node's model changes */
  current(): BuiltSchema;
  /** what requests are answered from now */
  target(): ServedTarget;
  /** called after each schema swap; returns an unsubscribe function */
  onSchemaChange(listener: (built: BuiltSchema) => void): () => void;
  /** called after `-n` moved to another schema (blue/green); returns an unsubscribe function */
  onSwitch(listener: (s: DeploymentSwitch) => void): () => void;
  /** a context for one request or subscription */
  createContext(): QueryContext;
  /** one GraphQL request over HTTP */
  execute(request: GraphqlRequest): Promise<GraphqlResponse>;
  health(): Promise<Health>;
  /** looks for a changed model, or a moved deployment, now (the timer does this every few seconds) */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createQueryService(options: QueryServiceOptions): Promise<QueryService> {
  const { settings, logger } = options;
  const name = options.schema;
  const log = logger.child('query');
  const cache = new DocumentCache();
  const follower = options.follower ?? pointerRowFollower(options.db, name, options.embeddedProject);

  const makeTarget = async (at: Placement): Promise<ServedTarget> => {
    const project = await readStoredProject(at.db.kysely, at.schema, at.db.description);
    const built = buildSchema({ project, settings, version: options.version, extensions: options.extensions });
    return withContexts(at, built);
  };
  const withContexts = (at: Placement, built: BuiltSchema): ServedTarget => {
    const { schema, db } = at;
    const place: DatabasePlace = { description: db.description, ...(at.embeddedProject !== undefined && { embeddedProject: at.embeddedProject }) };
    const metadata = storedMetadata({ db, schema, place, ...(options.indexer !== undefined && { indexer: options.indexer }) });
    return {
      ...at,
      built,
      createContext: () => createQueryContext({ db: db.kysely, schema, tables: built.tables, settings, metadata, logger: log, place }),
    };
  };
  let live = await makeTarget(await follower.locate(undefined));
  if (live.schema !== name || live.db !== options.db) log.info(`"${name}" is a deployment: serving its live schema "${live.schema}" of ${live.db.description}`);
  const listeners = new Set<(b: BuiltSchema) => void>();
  const switchListeners = new Set<(s: DeploymentSwitch) => void>();

  /** Builds the new target completely before one assignment swaps it in; nothing in between awaits. */
  let moving: Promise<boolean> | undefined;
  async function follow(heardAt = performance.now()): Promise<boolean> {
    const at = await follower.locate(live);
    if (samePlacement(at, live)) return false;
    const to = await makeTarget(at).catch(async (err: unknown) => {
      if (at.db !== live.db) await follower.release?.(at);
      throw err;
    });
    const from = live;
    live = to;
    const tookMs = Math.round(performance.now() - heardAt);
    const where = to.db === from.db ? '' : ` of ${to.db.description}`;
    log.info(`the deployment "${name}" moved: now serving schema "${to.schema}"${where} (was "${from.schema}"), switched in ${tookMs} ms`, {
      event: 'deployment-switched',
      deployment: name,
      schema: to.schema,
      previous: from.schema,
      tookMs,
    });
    for (const l of switchListeners) l({ from, to, tookMs });
    if (from.db !== to.db) releaseLater(from);
    return true;
  }
  // requests that took the old target finish on it: its database goes once they have had their time
  const releasing = new Map<NodeJS.Timeout, Placement>();
  const release = (at: Placement) => follower.release?.(at).catch((err: unknown) => log.warn(`closing ${at.db.description}: ${(err as Error).message}`));
  const releaseLater = (from: Placement) => {
    const timer = setTimeout(() => {
      releasing.delete(timer);
      void release(from);
    }, settings.queryTimeoutMs + 1000);
    timer.unref();
    releasing.set(timer, from);
  };
  // one look at a time: a notification and the timer must not build the same target twice
  const followOnce = (heardAt?: number) => (moving ??= follow(heardAt).finally(() => (moving = undefined)));

  async function reload(): Promise<boolean> {
    if (await followOnce()) return true;
    const current = live;
    const project = await readStoredProject(current.db.kysely, current.schema, current.db.description);
    if (project.fingerprint === current.built.project.fingerprint) return false;
    const built = buildSchema({ project, settings, version: options.version, extensions: options.extensions });
    // a switch while this was built wins: its target is newer
    if (live !== current) return false;
    live = withContexts(current, built);
    log.info(`the entity model of "${current.schema}" changed: GraphQL schema reloaded (${built.tables.size} entities)`);
    for (const l of listeners) l(built);
    return true;
  }

  let failing = false;
  // a look under way when the service closes fails on the closed database: no news for anyone
  let closed = false;
  const lookNow = (heardAt?: number) =>
    (heardAt === undefined ? reload() : followOnce(heardAt)).then(
      () => (failing = false),
      (err: unknown) => {
        if (closed) return;
        // keep serving the last good schema; say so once per outage
        if (!failing) log.warn(`cannot reload the schema, still serving the previous one: ${(err as Error).message}`);
        failing = true;
      },
    );
  // With --disable-hot-schema the model stays as it is, but a promotion is still followed: the
  // timer then looks at the pointer only (for a missed notification, or a lagging read replica).
  const timer = setInterval(() => void (options.hotSchema ? lookNow() : lookNow(performance.now())), options.hotSchemaIntervalMs ?? 5000);
  timer.unref();
  // A promotion is heard at once where the database can LISTEN; the timer above is the fallback.
  const unlisten = await follower.listen?.(() => void lookNow(performance.now()));

  const service: QueryService = {
    schemaName: name,
    settings,
    current: () => live.built,
    target: () => live,
    onSchemaChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    onSwitch(listener) {
      switchListeners.add(listener);
      return () => switchListeners.delete(listener);
    },
    createContext: () => live.createContext(),
    execute(request) {
      const current = live;
      return executeRequest(
        request,
        { schema: current.built.schema, context: current.createContext(), queryComplexity: options.queryComplexity, logger: log },
        cache,
      );
    },
    async health() {
      if (options.indexer !== undefined) return indexerHealthAt(options.indexer);
      try {
        await execute(live.db.kysely, PING.text, PING.values);
        return { healthy: true };
      } catch (err) {
        return { healthy: false, error: `the database (${live.db.description}) does not answer: ${(err as Error).message}` };
      }
    },
    reload,
    async close() {
      closed = true;
      clearInterval(timer);
      await unlisten?.();
      for (const [t, at] of releasing) {
        clearTimeout(t);
        await release(at);
      }
      releasing.clear();
      await release(live);
      listeners.clear();
      switchListeners.clear();
    },
  };
  return service;
}

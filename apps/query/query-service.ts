import type { Db } from '../../infra/postgres/create-db.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
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
  version: string;
  logger: Logger;
  extensions?: readonly SchemaExtension[];
}

export type Health = { healthy: true } | { healthy: false; error: string };

/**
 * The query service without its HTTP server: the current GraphQL schema (rebuilt when the node
 * changes the model), per-request contexts, request execution, metadata and health. The server,
 * the playground and graphql-ws subscriptions all go through it.
 */
export interface QueryService {
  readonly schemaName: string;
  readonly settings: QuerySettings;
  readonly db: Db;
  /** the schema now; it changes when the node's model changes */
  current(): BuiltSchema;
  /** called after each schema swap; returns an unsubscribe function */
  onSchemaChange(listener: (built: BuiltSchema) => void): () => void;
  /** a context for one request or subscription */
  createContext(): QueryContext;
  /** one GraphQL request over HTTP */
  execute(request: GraphqlRequest): Promise<GraphqlResponse>;
  health(): Promise<Health>;
  /** looks for a changed model now (the timer does this every few seconds) */
  reload(): Promise<boolean>;
  close(): Promise<void>;
}

export async function createQueryService(options: QueryServiceOptions): Promise<QueryService> {
  const { db, schema, settings, logger } = options;
  const log = logger.child('query');
  const build = async () => {
    const project = await readStoredProject(db.kysely, schema, db.description);
    return buildSchema({ project, settings, version: options.version, extensions: options.extensions });
  };
  let built = await build();
  const listeners = new Set<(b: BuiltSchema) => void>();
  const cache = new DocumentCache();

  const place: DatabasePlace = { description: db.description, ...(options.embeddedProject !== undefined && { embeddedProject: options.embeddedProject }) };
  const metadata = storedMetadata({ db, schema, place, ...(options.indexer !== undefined && { indexer: options.indexer }) });

  async function reload(): Promise<boolean> {
    const project = await readStoredProject(db.kysely, schema, db.description);
    if (project.fingerprint === built.project.fingerprint) return false;
    built = buildSchema({ project, settings, version: options.version, extensions: options.extensions });
    log.info(`the entity model of "${schema}" changed: GraphQL schema reloaded (${built.tables.size} entities)`);
    for (const l of listeners) l(built);
    return true;
  }

  let timer: NodeJS.Timeout | undefined;
  if (options.hotSchema) {
    let failing = false;
    timer = setInterval(() => {
      reload().then(
        () => (failing = false),
        (err: unknown) => {
          // keep serving the last good schema; say so once per outage
          if (!failing) log.warn(`cannot reload the schema, still serving the previous one: ${(err as Error).message}`);
          failing = true;
        },
      );
    }, options.hotSchemaIntervalMs ?? 5000);
    timer.unref();
  }

  const service: QueryService = {
    schemaName: schema,
    settings,
    db,
    current: () => built,
    onSchemaChange(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    createContext: () => createQueryContext({ db: db.kysely, schema, tables: built.tables, settings, metadata, logger: log, place }),
    execute(request) {
      const current = built;
      const context = createQueryContext({ db: db.kysely, schema, tables: current.tables, settings, metadata, logger: log, place });
      return executeRequest(request, { schema: current.schema, context, queryComplexity: options.queryComplexity, logger: log }, cache);
    },
    async health() {
      if (options.indexer !== undefined) return indexerHealthAt(options.indexer);
      try {
        await execute(db.kysely, PING.text, PING.values);
        return { healthy: true };
      } catch (err) {
        return { healthy: false, error: `the database (${db.description}) does not answer: ${(err as Error).message}` };
      }
    },
    reload,
    async close() {
      clearInterval(timer);
      listeners.clear();
    },
  };
  return service;
}

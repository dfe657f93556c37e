import { GraphQLError, validate, type ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { IdxError } from '../../../domain/errors.ts';
import { createNotifyListener, type NotifyListener } from '../../../infra/postgres/notify-listener.ts';
import { tablesWithNotifyTriggers } from '../../../infra/postgres/notify-triggers.ts';
import { executeWithin } from '../execute-request.ts';
import type { QueryContext } from '../query-context.ts';
import { complexityError, queryComplexity } from '../query-complexity.ts';
import type { Placement, QueryService } from '../query-service.ts';
import { checkSelections, checkVariables, jsonSizeOver, parseBounded, REQUEST_LIMITS, responseTooLargeError } from '../request-limits.ts';
import type { QueryFeature } from '../run-query.ts';
import { REFRESH_CONTEXT, subscriptionFields, type OpenSubscriptions } from './subscription-fields.ts';

export interface SubscriptionFeatureOptions {
  /** `--query-complexity`, applied to subscriptions and to queries sent over the socket */
  queryComplexity: number;
}

/**
 * `idx-query --subscription`: the Subscription type, and graphql-ws on the same port as HTTP (any
 * path; GraphiQL uses `/`), fed by one pg-listen connection to the database the service reads.
 * Says so when the node made no triggers (it runs without `--subscription`), since subscriptions
 * then stay silent.
 */
export function subscriptionFeature(options: SubscriptionFeatureOptions): QueryFeature {
  let listener: NotifyListener | undefined;
  // The schema is built before the server exists; subscribing waits for attach().
  const lazy: NotifyListener = {
    async subscribe(channel, handler) {
      // while -n moves to another database, a new subscription waits for the listener there
      await moving;
      if (listener === undefined) throw new IdxError('STORE_INTERNAL', 'subscriptions are not connected yet');
      return listener.subscribe(channel, handler);
    },
    close: async () => undefined,
  };
  let dispose: (() => void | Promise<void>) | undefined;
  let wss: WebSocketServer | undefined;
  let stopEnding: (() => void) | undefined;
  let moving: Promise<void> | undefined;
  const open = openSubscriptions();
  return {
    flag: '--subscription',
    name: 'subscriptions',
    extendSchema: subscriptionFields(lazy, open),
    async attach({ server, service, logger }) {
      const log = logger.child('subscriptions');
      const listenOn = async (target: Placement) => {
        const { db } = target;
        if (db.connection === undefined) throw new IdxError('OPTION_NOT_AVAILABLE', `--subscription: ${db.description} offers no connection to LISTEN on`);
        const opened = await createNotifyListener({
          connection: { ...db.connection, application_name: 'idx-query-listen' },
          onError: (err) => log.warn(`LISTEN connection: ${err.message}`),
          onReconnect: (attempt) => log.info(`LISTEN connection: reconnecting (attempt ${attempt})`),
        });
        const triggered = await tablesWithNotifyTriggers(db.kysely, target.schema).catch(() => []);
        if (triggered.length === 0) {
          log.warn(`no notification triggers in schema "${target.schema}": subscriptions stay silent until idx-node runs with --subscription`);
        }
        return opened;
      };
      // blue/green: a subscription reads the schema it began on; when -n moves, it ends saying so,
      // and the notifications come from the new version's database (another one on the embedded database)
      stopEnding = service.onSwitch(({ from, to }) => {
        const ended = open.end(from.schema, () => deploymentSwitched(service.schemaName, from.schema, to.schema));
        if (ended > 0) log.info(`ended ${ended} subscription(s) on schema "${from.schema}" with DEPLOYMENT_SWITCHED: their clients subscribe again`);
        if (to.db !== from.db) moving = moveListener(to);
      });
      const moveListener = async (to: Placement) => {
        await moving;
        const next = await listenOn(to).catch((err: unknown) => {
          log.warn(`subscriptions cannot listen on ${to.db.description}: ${(err as Error).message}`);
          return undefined;
        });
        const old = listener;
        if (next !== undefined) listener = next;
        await old?.close();
      };
      open.watch(service);
      listener = await listenOn(service.target());
      // ws accepts 100 MiB messages by default: hold them to the HTTP body limit (a larger one closes the socket with 1009)
      wss = new WebSocketServer({ server, maxPayload: REQUEST_LIMITS.maxMessageBytes });
      const handle = useServer(
        {
          onSubscribe: (_ctx, _id, payload) => prepare(service, payload, options.queryComplexity),
          execute: (args) => executeWithin(args as ExecutionArgs & { contextValue: QueryContext }),
          onNext: (_ctx, _id, _payload, _args, result) =>
            jsonSizeOver(result, REQUEST_LIMITS.maxResponseBytes) ? { data: null, errors: [responseTooLargeError().toJSON()] } : undefined,
          onError: (_ctx, _id, _payload, errors) => {
            for (const e of errors) if (e.extensions?.code === undefined) log.warn(`subscription failed: ${e.message}`);
          },
        },
        wss,
      );
      // graphql-ws prints every socket error to stderr; a client sending oversized or broken
      // frames (ws closes those itself, e.g. 1009) must not be able to flood the log
      wss.on('connection', (socket) => {
        socket.removeAllListeners('error');
        socket.on('error', (err) => {
          log.debug(`websocket closed: ${err.message}`);
          if (socket.readyState === socket.OPEN) socket.close(1011, 'Internal server error');
        });
      });
      dispose = () => handle.dispose();
      log.info('GraphQL subscriptions (graphql-ws) on the same port');
    },
    async close() {
      stopEnding?.();
      await moving;
      await dispose?.();
      await new Promise<void>((resolve) => (wss ? wss.close(() => resolve()) : resolve()));
      await listener?.close();
    },
  };
}

/** Parse, the request limits, validate and `--query-complexity` as over HTTP; each operation gets a context renewed per event. */
function prepare(
  service: QueryService,
  payload: { query: string; operationName?: string | null; variables?: Record<string, unknown> | null },
  limit: number,
): ExecutionArgs | readonly GraphQLError[] {
  // one target for the whole subscription: its schema, types and every event's reads
  const target = service.target();
  const { schema } = target.built;
  const variables = payload.variables ?? {};
  const deep = checkVariables(variables);
  if (deep !== undefined) return [deep];
  const document = parseBounded(payload.query);
  if (document instanceof GraphQLError) return [document];
  const tooLarge = checkSelections(document);
  if (tooLarge !== undefined) return [tooLarge];
  const invalid = validate(schema, document);
  if (invalid.length > 0) return invalid;
  const complexity = queryComplexity(schema, document, payload.operationName, variables);
  if (complexity > limit) return [complexityError(complexity, limit)];
  return {
    schema,
    document,
    operationName: payload.operationName ?? null,
    variableValues: variables,
    contextValue: renewableContext(() => target.createContext()),
  };
}

/** A context whose batcher, deadline and the rest are replaced each time REFRESH_CONTEXT is called. */
function renewableContext(make: () => QueryContext): QueryContext {
  let current = make();
  const refresh = () => void (current = make());
  return new Proxy({} as QueryContext, {
    get: (_target, key) => (key === REFRESH_CONTEXT ? refresh : Reflect.get(current, key)),
    has: (_target, key) => key === REFRESH_CONTEXT || Reflect.has(current, key),
  });
}

/** The open subscriptions by schema, to end those on a schema no longer served. */
function openSubscriptions(): OpenSubscriptions & { watch(service: QueryService): void; end(schema: string, error: () => Error): number } {
  const bySchema = new Map<string, Set<(err: Error) => void>>();
  let service: QueryService | undefined;
  return {
    watch(s) {
      service = s;
    },
    add(schema, end) {
      // begun on a target that was switched away before it got here: ends at once
      const live = service?.target().schema;
      if (live !== undefined && live !== schema) {
        end(deploymentSwitched(service!.schemaName, schema, live));
        return () => undefined;
      }
      let set = bySchema.get(schema);
      if (set === undefined) bySchema.set(schema, (set = new Set()));
      set.add(end);
      return () => void set.delete(end);
    },
    end(schema, error) {
      const set = bySchema.get(schema);
      if (set === undefined) return 0;
      bySchema.delete(schema);
      for (const end of set) end(error());
      return set.size;
    },
  };
}

/**
 * The error a subscription ends with when its deployment moves to another schema (docs/graphql.md):
 * its events came from the old version, and the new one may have other types, so the client
 * subscribes again. graphql-ws sends it as an `error` message carrying these extensions.
 */
export function deploymentSwitched(deployment: string, from: string, to: string): Error {
  return Object.assign(
    new Error(
      `the deployment "${deployment}" now serves schema "${to}" (was "${from}"): this subscription ended; subscribe again to receive the new version's changes`,
    ),
    { extensions: { code: 'DEPLOYMENT_SWITCHED', deployment, schema: to, previous: from } },
  );
}

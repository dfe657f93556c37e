import { notifyChannel } from '../../../domain/entities/names.ts';
import type { NotifyListener } from '../../../infra/postgres/notify-listener.ts';
import type { NotifyPayload } from '../../../infra/postgres/notify-triggers.ts';
import { parseUtcTimestamp } from '../../../infra/postgres/utc-timestamps.ts';
import type { SchemaExtension } from '../schema/schema-extension.ts';
import type { EntityTable } from '../entity-tables.ts';
import { loadById, type EntityRow } from '../entity-rows.ts';
import type { QueryContext } from '../query-context.ts';

/** A subscription's context is renewed before each event: each gets its own batcher and `--query-timeout`. */
export const REFRESH_CONTEXT = Symbol('idx.refreshContext');
type Refreshable = { [REFRESH_CONTEXT]?: () => void };

/** Past this many undelivered events a subscriber is too slow and its subscription ends with an error. */
const MAX_QUEUED = 10_000;

type MutationType = NotifyPayload['mutation_type'];

interface SubscriptionArgs {
  id?: readonly string[] | null;
  mutation?: readonly MutationType[] | null;
}

/**
 * The open subscriptions by the schema they read: a deployment switch ends those on the schema no
 * longer served (docs/graphql.md "Subscriptions").
 */
export interface OpenSubscriptions {
  /** registers one; `end` finishes it after the events already queued. Returns how to forget it. */
  add(schema: string, end: (err: Error) => void): () => void;
}

/**
 * The Subscription type (docs/graphql.md "Subscriptions"): per entity `transfers(id: [ID!], mutation:
 * [MutationType!]): TransferPayload`, fed by the node's NOTIFY triggers through `listener`.
 */
export function subscriptionFields(listener: NotifyListener, open?: OpenSubscriptions): SchemaExtension {
  return {
    name: 'subscriptions',
    finish({ composer: sc, tables }) {
      sc.createEnumTC({ name: 'MutationType', values: { INSERT: { value: 'INSERT' }, UPDATE: { value: 'UPDATE' }, DELETE: { value: 'DELETE' } } });
      for (const t of tables.values()) {
        const payloadType = `${t.names.type}Payload`;
        sc.createObjectTC({
          name: payloadType,
          description: `A change to a ${t.names.type}: its id, what happened, and the row (its last state for DELETE).`,
          fields: {
            id: 'ID!',
            mutation_type: 'MutationType!',
            _entity: {
              type: t.names.type,
              resolve: (p: NotifyPayload, _args: unknown, ctx: QueryContext) =>
                // too large for NOTIFY: read the live row (none left after a DELETE)
                p._entity !== null ? notifiedRow(t, p._entity) : loadById(ctx, t, p.id, undefined).then((r) => r ?? null),
            },
          },
        });
        sc.Subscription.addFields({
          [t.names.connection]: {
            type: payloadType,
            description: `Changes to ${t.names.type} rows as the node writes them (needs --subscription on idx-node and idx-query).`,
            args: { id: { type: '[ID!]', description: 'Only these ids.' }, mutation: { type: '[MutationType!]', description: 'Only these kinds of change.' } },
            subscribe: async (_src: unknown, args: SubscriptionArgs, ctx: QueryContext & Refreshable) => {
              const ids = args.id == null ? undefined : new Set(args.id);
              const kinds = args.mutation == null ? undefined : new Set(args.mutation);
              const stream = createEventStream(
                (p) => (ids === undefined || ids.has(p.id)) && (kinds === undefined || kinds.has(p.mutation_type)),
                () => ctx[REFRESH_CONTEXT]?.(),
              );
              const forget = open?.add(ctx.schema, (err) => stream.end(err));
              const unsubscribe = await listener.subscribe(notifyChannel(ctx.schema, t.entity.table), stream.push);
              stream.attach(async () => {
                forget?.();
                await unsubscribe();
              });
              return stream;
            },
            resolve: (p: NotifyPayload) => p,
          },
        });
      }
    },
  };
}

/**
 * The row a trigger sent (to_jsonb of the row), keyed by column and made what the query's own reads
 * give (numeric values already come as text): bytea's `\\x…` as 0x-hex, a timestamp's zoneless ISO
 * text as the UTC instant it holds, NaN and ±Infinity of double precision (strings in JSON) as numbers.
 */
export function notifiedRow(t: EntityTable, entity: Record<string, unknown>): EntityRow {
  const row: EntityRow = { ...entity };
  for (const c of t.columns) {
    const v = row[c.column];
    if (typeof v !== 'string' || c.list) continue;
    if (c.kind === 'float') row[c.column] = Number(v);
    else if (c.kind === 'bytes') row[c.column] = `0x${v.replace(/^\\x/, '')}`;
    else if (c.kind === 'datetime') row[c.column] = parseUtcTimestamp(v);
  }
  return row;
}

interface EventStream extends AsyncIterableIterator<NotifyPayload> {
  push(p: NotifyPayload): void;
  /** no more events: the queued ones are delivered, then the subscription ends with `err` */
  end(err: Error): void;
  attach(unsubscribe: () => Promise<void>): void;
}

function createEventStream(accept: (p: NotifyPayload) => boolean, beforeEach: () => void): EventStream {
  const queue: NotifyPayload[] = [];
  let wake: (() => void) | undefined;
  let done = false;
  let failure: Error | undefined;
  let ending: Error | undefined;
  let unsubscribe: (() => Promise<void>) | undefined;
  const finish = async () => {
    done = true;
    wake?.();
    await unsubscribe?.();
    unsubscribe = undefined;
  };
  const stream: EventStream = {
    push(p) {
      if (done || !accept(p)) return;
      if (queue.length >= MAX_QUEUED) {
        failure = new Error(`this subscription fell ${MAX_QUEUED} events behind and was ended; subscribe again, with id or mutation filters if you can`);
        void finish();
        return;
      }
      queue.push(p);
      wake?.();
    },
    end(err) {
      if (done) return;
      ending = err;
      void finish();
    },
    attach(fn) {
      unsubscribe = fn;
      if (done) void finish();
    },
    async next() {
      while (queue.length === 0 && !done) await new Promise<void>((r) => (wake = r));
      wake = undefined;
      if (failure !== undefined) {
        const err = failure;
        failure = undefined;
        throw err;
      }
      if (queue.length === 0) {
        const err = ending;
        ending = undefined;
        if (err !== undefined) throw err;
        return { done: true, value: undefined };
      }
      beforeEach();
      return { done: false, value: queue.shift()! };
    },
    async return() {
      queue.length = 0;
      await finish();
      return { done: true, value: undefined };
    },
    async throw(err) {
      queue.length = 0;
      await finish();
      throw err;
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  };
  return stream;
}

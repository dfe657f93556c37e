import { createClient, type Client } from 'graphql-ws';
import t from 'tap';
import WebSocket from 'ws';
import type { EntityData, StoreOperation } from '../../../domain/entities/entity-store.ts';
import { notifyChannel } from '../../../domain/entities/names.ts';
import { createEntityStore } from '../../../infra/postgres/create-entity-store.ts';
import { installNotifyTriggers } from '../../../infra/postgres/notify-triggers.ts';
import { prepareProjectSchema } from '../../../infra/postgres/prepare-project-schema.ts';
import { execute } from '../../../infra/postgres/sql.ts';
import { createTestBackends, type TestBackend } from '../../../test/support/test-backends.ts';
import { startSubscriptionService } from '../../../test/support/query-client.ts';
import { entity, schemaModel } from '../../../test/support/test-models.ts';

const backends = createTestBackends(t);
// a notified Date is UTC without a zone (to_jsonb of a timestamp): it must read as UTC in any zone
process.env.TZ = 'America/New_York';

const model = schemaModel([
  entity('Account', { name: 'String', balance: 'BigInt', score: 'Float', key: 'Bytes', seen: 'Date', tags: { type: 'BigInt', list: true } }),
  entity('Transfer', { from: { type: { kind: 'entity', entity: 'Account' } }, value: 'BigInt', note: 'String' }),
]);

const op = (e: string, id: string, height: number, data?: EntityData): StoreOperation =>
  data === undefined ? { entity: e, id, height, op: 'remove' } : { entity: e, id, height, op: 'set', data: { id, ...data } };

interface Collected<T> {
  events: T[];
  /** waits for `n` events in all, then a little longer for any that should not come */
  wait(n: number): Promise<T[]>;
  errors: unknown[];
}

function collect<T>(client: Client, query: string, variables: Record<string, unknown> = {}): Collected<T> {
  const events: T[] = [];
  const errors: unknown[] = [];
  client.subscribe<Record<string, T>>(
    { query, variables },
    {
      next: (r) => (r.errors ? errors.push(r.errors) : events.push(Object.values(r.data!)[0]!)),
      error: (e) => errors.push(e),
      complete: () => undefined,
    },
  );
  return {
    events,
    errors,
    async wait(n) {
      const until = Date.now() + 5000;
      while (events.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      await new Promise((r) => setTimeout(r, 150));
      return events;
    },
  };
}

type Payload = { id: string; mutation_type: string; _entity: Record<string, unknown> | null };

const PROBE = '__probe';
const isProbe = (p: Payload) => p.id === PROBE || p._entity?.name === PROBE || p._entity?.note === PROBE;

/**
 * graphql-ws says nothing when a subscription has started listening: send probe notifications
 * until every subscription has seen one, then forget them.
 */
async function whenListening(b: TestBackend, subs: { c: Collected<Payload>; channel: string; payload: Payload }[]): Promise<void> {
  const until = Date.now() + 20_000;
  while (subs.some((s) => !s.c.events.some(isProbe)) && Date.now() < until) {
    for (const s of subs) await execute(b.db.kysely, 'select pg_notify($1, $2)', [s.channel, JSON.stringify(s.payload)]);
    await new Promise((r) => setTimeout(r, 100));
  }
  await new Promise((r) => setTimeout(r, 300));
  for (const s of subs) {
    const kept = s.c.events.filter((p) => !isProbe(p));
    s.c.events.splice(0, s.c.events.length, ...kept);
  }
}

t.test('subscriptions: INSERT, UPDATE, DELETE with their rows, id and mutation filters, nested relations, large rows re-read', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    await installNotifyTriggers(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.setMetadata({ schema: model });
    const running = await startSubscriptionService(t, b);

    const client = createClient({ url: `ws://localhost:${running.port}/`, webSocketImpl: WebSocket, retryAttempts: 0 });
    t.teardown(() => client.dispose());
    const accounts = collect<Payload>(client, 'subscription { accounts { id mutation_type _entity { id name balance score key seen tags } } }');
    const onlyB = collect<Payload>(
      client,
      'subscription ($ids: [ID!]) { accounts(id: $ids, mutation: [UPDATE, DELETE]) { id mutation_type _entity { name } } }',
      { ids: ['b'] },
    );
    const transfers = collect<Payload>(client, 'subscription { transfers { id mutation_type _entity { value note from { id name } } } }');
    // subscriptions are set up before the first write
    await whenListening(b, [
      { c: accounts, channel: notifyChannel(b.schema, 'accounts'), payload: { id: 'b', mutation_type: 'UPDATE', _entity: { id: 'b', name: PROBE } } },
      { c: onlyB, channel: notifyChannel(b.schema, 'accounts'), payload: { id: 'b', mutation_type: 'UPDATE', _entity: { id: 'b', name: PROBE } } },
      { c: transfers, channel: notifyChannel(b.schema, 'transfers'), payload: { id: PROBE, mutation_type: 'INSERT', _entity: { id: PROBE, note: PROBE } } },
    ]);

    const big = '123456789012345678901234567890';
    await store.flush({
      operations: [
        op('Account', 'a', 1, { name: 'alice', balance: BigInt(big), score: 1.5, key: '0xAB01', seen: new Date('2024-02-29T12:34:56.789Z'), tags: [1n, 2n] }),
        op('Account', 'b', 1, { name: 'bob', balance: 0n }),
      ],
    });
    await store.flush({
      operations: [op('Account', 'b', 2, { name: 'bob', balance: 7n }), op('Transfer', 't1', 2, { fromId: 'a', value: 7n, note: 'x'.repeat(8100) })],
    });
    await store.flush({ operations: [op('Account', 'b', 3)] });

    t.strictSame(
      await accounts.wait(4),
      [
        {
          id: 'a',
          mutation_type: 'INSERT',
          _entity: { id: 'a', name: 'alice', balance: big, score: 1.5, key: '0xab01', seen: '2024-02-29T12:34:56.789Z', tags: ['1', '2'] },
        },
        { id: 'b', mutation_type: 'INSERT', _entity: { id: 'b', name: 'bob', balance: '0', score: null, key: null, seen: null, tags: null } },
        { id: 'b', mutation_type: 'UPDATE', _entity: { id: 'b', name: 'bob', balance: '7', score: null, key: null, seen: null, tags: null } },
        { id: 'b', mutation_type: 'DELETE', _entity: { id: 'b', name: 'bob', balance: '7', score: null, key: null, seen: null, tags: null } },
      ],
      'every change in order, BigInt exact, Bytes as 0x-hex, a Date in UTC, DELETE with the last state',
    );
    t.strictSame(
      (await onlyB.wait(2)).map((p) => `${p.mutation_type} ${p.id}`),
      ['UPDATE b', 'DELETE b'],
      'id and mutation filters',
    );
    t.strictSame(
      await transfers.wait(1),
      [{ id: 't1', mutation_type: 'INSERT', _entity: { value: '7', note: 'x'.repeat(8100), from: { id: 'a', name: 'alice' } } }],
      'a row too large for NOTIFY is read from the table; relations resolve',
    );
    t.same([...accounts.errors, ...onlyB.errors, ...transfers.errors], []);
  }),
);

t.test('subscriptions obey --query-complexity; HTTP refuses them', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.setMetadata({ schema: model });
    const running = await startSubscriptionService(t, b, ['--query-complexity', '2']);
    const client = createClient({ url: `ws://localhost:${running.port}/`, webSocketImpl: WebSocket, retryAttempts: 0 });
    t.teardown(() => client.dispose());
    const costly = collect<Payload>(client, 'subscription { accounts { id _entity { id } } transfers: accounts { id } }');
    await costly.wait(0);
    // one subscription field per operation: graphql's own rule refuses two
    t.match(JSON.stringify(costly.errors), /only one top level field/);
    const tooComplex = collect<unknown>(
      client,
      '{ a: accounts(first: 100) { nodes { id } } b: accounts(first: 100) { nodes { id } } c: transfers(first: 100) { nodes { id } } }',
    );
    await tooComplex.wait(0);
    t.match(JSON.stringify(tooComplex.errors), /exceeds the limit 2 \(--query-complexity\)/);
    const res = await fetch(`http://localhost:${running.port}/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'subscription { accounts { id } }' }),
    });
    t.equal(res.status, 400);
  }),
);

import pg from 'pg';
import t from 'tap';
import type { EntityData, StoreOperation } from '../../domain/entities/entity-store.ts';
import { notifyChannel } from '../../domain/entities/names.ts';
import { createEntityStore } from './create-entity-store.ts';
import { dropNotifyTriggers, installNotifyTriggers, tablesWithNotifyTriggers, type NotifyPayload } from './notify-triggers.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { createTestBackends, type TestBackend } from '../../test/support/test-backends.ts';
import { entity, schemaModel } from '../../test/support/test-models.ts';

const backends = createTestBackends(t);

const model = schemaModel([
  entity('Account', {
    name: 'String',
    balance: 'BigInt',
    share: 'BigDecimal',
    amounts: { type: 'BigInt', list: true },
    seen: 'Int',
  }),
]);

const set = (id: string, height: number, data: EntityData): StoreOperation => ({ entity: 'Account', id, height, op: 'set', data: { id, ...data } });
const remove = (id: string, height: number): StoreOperation => ({ entity: 'Account', id, height, op: 'remove' });

interface Listener {
  payloads: NotifyPayload[];
  /** waits until `n` payloads arrived (or fails after a few seconds) and takes them */
  take(n: number): Promise<NotifyPayload[]>;
  close(): Promise<void>;
}

/** LISTEN as a subscriber would: a separate connection on PostgreSQL, `pglite.listen` in process. */
async function listen(b: TestBackend, channel: string): Promise<Listener> {
  const payloads: NotifyPayload[] = [];
  const onPayload = (text: string) => payloads.push(JSON.parse(text) as NotifyPayload);
  let close: () => Promise<void>;
  if (b.db.pglite !== undefined) {
    const pglite = b.db.pglite;
    // quoted: PGlite sends the name as it is given; its own unlisten callback would drop the quotes
    await pglite.listen(`"${channel}"`, onPayload);
    close = () => pglite.unlisten(`"${channel}"`, onPayload);
  } else {
    const client = new pg.Client({
      host: process.env.DB_HOST,
      port: Number(process.env.DB_PORT || 5432),
      user: process.env.DB_USER || 'postgres',
      password: process.env.DB_PASS,
      database: process.env.DB_DATABASE || 'postgres',
    });
    await client.connect();
    client.on('notification', (n) => n.channel === channel && onPayload(n.payload ?? ''));
    await client.query(`listen "${channel}"`);
    close = () => client.end();
  }
  return {
    payloads,
    async take(n) {
      const until = Date.now() + 5000;
      while (payloads.length < n && Date.now() < until) await new Promise((r) => setTimeout(r, 20));
      // a little longer, to catch notifications that should not have come
      await new Promise((r) => setTimeout(r, 100));
      return payloads.splice(0, payloads.length);
    },
    close,
  };
}

const brief = (p: NotifyPayload) => `${p.mutation_type} ${p.id}`;

t.test('historical: INSERT, UPDATE and DELETE as SubQuery reports them, exact numbers, large rows without _entity, rewind', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    await installNotifyTriggers(b.db.kysely, model, options);
    t.same(await tablesWithNotifyTriggers(b.db.kysely, b.schema), ['accounts']);
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    const l = await listen(b, notifyChannel(b.schema, 'accounts'));
    try {
      const big = 123456789012345678901234567890n;
      await store.flush({ operations: [set('a', 10, { name: 'alice', balance: big, share: '0.10000000000000000001', amounts: [1n, big], seen: 1 })] });
      const [created, ...rest] = await l.take(1);
      t.same(rest, []);
      t.strictSame(
        created,
        {
          id: 'a',
          mutation_type: 'INSERT',
          _entity: {
            id: 'a',
            name: 'alice',
            balance: big.toString(),
            share: '0.10000000000000000001',
            amounts: ['1', big.toString()],
            seen: 1,
            created_at: created!._entity!.created_at,
            updated_at: created!._entity!.updated_at,
          },
        },
        'a new id is an INSERT; numerics as strings, no __block_range',
      );

      await store.flush({ operations: [set('a', 11, { name: 'alice', balance: 5n, seen: 2 })] });
      const updated = await l.take(1);
      t.same(updated.map(brief), ['UPDATE a'], 'a new version of a live id is one UPDATE (the close says nothing)');
      t.equal(updated[0]!._entity!.balance, '5');

      await store.flush({ operations: [remove('a', 12)] });
      const removed = await l.take(1);
      t.same(removed.map(brief), ['DELETE a'], 'a closed version with no successor is a DELETE');
      t.equal(removed[0]!._entity!.balance, '5', 'the DELETE carries the last state');

      // created, changed and removed within one flush: versions inserted already closed
      await store.flush({ operations: [set('b', 13, { seen: 1 }), set('b', 14, { seen: 2 }), remove('b', 15)] });
      const life = await l.take(3);
      t.same(
        life.map((p) => `${brief(p)} ${p._entity?.seen}`),
        ['INSERT b 1', 'UPDATE b 2', 'DELETE b 2'],
      );

      // removed, then set again later: a new INSERT
      await store.flush({ operations: [set('a', 16, { seen: 3 })] });
      t.same((await l.take(1)).map(brief), ['INSERT a'], 'an id set again after its removal is an INSERT');

      await store.flush({ operations: [set('c', 17, { name: 'x'.repeat(9000) })] });
      const large = await l.take(1);
      t.strictSame(large, [{ id: 'c', mutation_type: 'INSERT', _entity: null }], 'a payload over 8000 bytes comes without _entity');

      await store.rewind(11);
      const rewound = await l.take(2);
      t.same(rewound.map(brief).sort(), ['DELETE c', 'UPDATE a'], 'rewind: the reopened version is an UPDATE, an id with no version left a DELETE');
      t.equal(rewound.find((p) => p.id === 'a')!._entity!.seen, 2);
    } finally {
      await l.close();
    }
  }),
);

t.test('without history: the statement kinds themselves; triggers dropped again', (t) =>
  backends.each(t, async (t, b) => {
    const options = { schema: b.schema, historical: false, timestampField: false };
    await prepareProjectSchema(b.db.kysely, model, options);
    await installNotifyTriggers(b.db.kysely, model, options);
    await installNotifyTriggers(b.db.kysely, model, options); // a restart: replaced, not doubled
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: false, timestampField: false });
    const l = await listen(b, notifyChannel(b.schema, 'accounts'));
    try {
      await store.flush({ operations: [set('a', 1, { seen: 1 })] });
      await store.flush({ operations: [set('a', 2, { seen: 2 })] });
      await store.flush({ operations: [remove('a', 3)] });
      t.same(
        (await l.take(3)).map((p) => `${brief(p)} ${p._entity?.seen}`),
        ['INSERT a 1', 'UPDATE a 2', 'DELETE a 2'],
      );

      await dropNotifyTriggers(b.db.kysely, b.schema);
      await dropNotifyTriggers(b.db.kysely, b.schema);
      t.same(await tablesWithNotifyTriggers(b.db.kysely, b.schema), []);
      await store.flush({ operations: [set('z', 4, { seen: 1 })] });
      t.same(await l.take(0), [], 'no notifications once dropped');
    } finally {
      await l.close();
    }
  }),
);

t.test("a field createdAt arrives under created_at; idx's own time under __created_at", (t) =>
  backends.each(t, async (t, b) => {
    const domains = schemaModel([entity('Domain', { createdAt: 'BigInt', updatedAt: 'Date' })]);
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, domains, options);
    await installNotifyTriggers(b.db.kysely, domains, options);
    const store = createEntityStore({ db: b.db.kysely, model: domains, ...options });
    const l = await listen(b, notifyChannel(b.schema, 'domains'));
    try {
      await store.flush({
        operations: [{ entity: 'Domain', id: 'd', height: 1, op: 'set', data: { id: 'd', createdAt: 12345678901234567890n, updatedAt: new Date(0) } }],
      });
      const [p] = await l.take(1);
      t.match(p!._entity, {
        id: 'd',
        created_at: '12345678901234567890',
        updated_at: /^1970-01-01T00:00:00/,
        __created_at: /^\d{4}-/,
        __updated_at: /^\d{4}-/,
      });
    } finally {
      await l.close();
    }
  }),
);

import t from 'tap';
import { createEntityStore } from './create-entity-store.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { readEntityVersions } from './read-entity-versions.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { everyTypeModel } from '../../test/support/test-models.ts';

const backends = createTestBackends(t);

t.test('every version of every entity, with its block range and its values as the store reads them', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    const date = new Date('2024-01-02T03:04:05.678Z');
    await store.flush({
      operations: [
        { entity: 'Account', id: 'b', height: 5, op: 'set', data: { id: 'b', name: 'first' } },
        { entity: 'EveryType', id: 'e', height: 5, op: 'set', data: { id: 'e', str: 's', big: 12n, date, bytes: '0x00ff', ownerId: 'b' } },
        { entity: 'Account', id: 'a', height: 6, op: 'set', data: { id: 'a', name: 'gone' } },
      ],
    });
    await store.flush({
      operations: [
        { entity: 'Account', id: 'b', height: 7, op: 'set', data: { id: 'b', name: 'second' } },
        { entity: 'Account', id: 'a', height: 8, op: 'remove' },
      ],
    });
    const versions = await readEntityVersions(b.db.kysely, { schema: b.schema, model, historical: true });
    t.same(
      versions.map((v) => [v.entity, v.id, v.blockRange, v.data.name]),
      [
        ['Account', 'a', [6, 8], 'gone'],
        ['Account', 'b', [5, 7], 'first'],
        ['Account', 'b', [7, null], 'second'],
        ['EveryType', 'e', [5, null], undefined],
      ],
      'by entity, id and first block; a removed entity keeps its closed version',
    );
    const e = versions[3]!.data;
    t.equal(e.big, 12n);
    t.same(e.date, date);
    t.equal(e.bytes, '0x00ff');
    t.equal(e.ownerId, 'b');
    t.notOk('created_at' in e || 'createdAt' in e, 'no wall-clock columns');
  }),
);

t.test('without history: one row per entity, no block range', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: false, timestampField: false });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: false, timestampField: false });
    await store.flush({ operations: [{ entity: 'Account', id: 'a', height: 1, op: 'set', data: { id: 'a', name: 'x' } }] });
    await store.flush({ operations: [{ entity: 'Account', id: 'a', height: 2, op: 'set', data: { id: 'a', name: 'y' } }] });
    const versions = await readEntityVersions(b.db.kysely, { schema: b.schema, model, historical: false });
    t.same(versions, [{ entity: 'Account', id: 'a', data: { id: 'a', name: 'y' }, blockRange: null }]);
  }),
);

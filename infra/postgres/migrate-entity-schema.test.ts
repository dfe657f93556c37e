import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { diffSchemas } from '../../domain/entities/schema-diff.ts';
import { createEntityStore } from './create-entity-store.ts';
import { migrateEntitySchema } from './migrate-entity-schema.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute, quoteIdent } from './sql.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';

const backends = createTestBackends(t);

const BEFORE = `
enum Colour { RED GREEN BLUE }
type Item @entity @fullText(fields: ["name", "gone"]) {
  id: ID!
  name: String! @index
  size: Int!
  colour: Colour
  tags: [String]
  owner: Owner
  gone: String
}
type Owner @entity { id: ID! }
type Old @entity { id: ID!, x: Int }
`;
const AFTER = `
enum Colour { RED BLUE YELLOW }
enum Shape { ROUND SQUARE }
type Item @entity @fullText(fields: ["name", "note"], language: "simple") {
  id: ID!
  name: String
  size: BigInt! @index
  colour: Colour
  tags: [String]
  owner: Owner
  shape: Shape
  note: String
  sizes: [Int]
}
type Owner @entity { id: ID!, label: String }
type Fresh @entity { id: ID!, y: Int! }
`;

const opts = (schema: string) => ({ schema, historical: true, timestampField: true });

t.test('tables, columns, indexes and enums are migrated in place; the data stays', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const before = parseSchema(BEFORE);
    const after = parseSchema(AFTER);
    await prepareProjectSchema(db.kysely, before, opts(schema));
    const store = createEntityStore({ db: db.kysely, model: before, ...opts(schema) });
    await store.flush({
      operations: [
        { entity: 'Item', id: 'a', height: 1, op: 'set', data: { id: 'a', name: 'first', size: 3, colour: 'BLUE', tags: ['x'], ownerId: 'o', gone: 'bye' } },
        { entity: 'Item', id: 'b', height: 2, op: 'set', data: { id: 'b', name: 'second', size: 7, colour: null, tags: null, ownerId: null, gone: null } },
        { entity: 'Old', id: 'z', height: 2, op: 'set', data: { id: 'z', x: 1 } },
      ],
      metadata: { lastProcessedHeight: 2, schema: before },
    });
    const changes = diffSchemas(before, after);
    await migrateEntitySchema(db.kysely, before, after, changes, { ...opts(schema), metadata: { schema: after, schemaMigrationCount: 1 } });

    const cols = async (table: string) =>
      (
        await execute<{ column_name: string; data_type: string; is_nullable: string }>(
          db.kysely,
          `select column_name, data_type, is_nullable from information_schema.columns where table_schema = $1 and table_name = $2 order by column_name`,
          [schema, table],
        )
      ).map((c) => `${c.column_name}:${c.data_type}:${c.is_nullable === 'YES' ? 'null' : 'not null'}`);
    t.same(await cols('items'), [
      '__block_range:int8range:not null',
      '_tsv:tsvector:null',
      'colour:USER-DEFINED:null',
      'created_at:timestamp with time zone:not null',
      'id:text:not null',
      'name:text:null',
      'note:text:null',
      'owner_id:text:null',
      'shape:USER-DEFINED:null',
      'size:numeric:not null',
      'sizes:jsonb:null',
      'tags:jsonb:null',
      'updated_at:timestamp with time zone:not null',
    ]);
    t.same(await cols('olds'), [], "a removed entity's table is dropped");
    t.same(await cols(after.entities.find((e) => e.name === 'Fresh')!.table), [
      '__block_range:int8range:not null',
      'created_at:timestamp with time zone:not null',
      'id:text:not null',
      'updated_at:timestamp with time zone:not null',
      'y:integer:not null',
    ]);
    t.ok((await cols('owners')).includes('label:text:null'));

    const indexes = (
      await execute<{ indexname: string }>(db.kysely, `select indexname from pg_indexes where schemaname = $1 and tablename = 'items' order by indexname`, [
        schema,
      ])
    ).map((r) => r.indexname);
    t.ok(indexes.includes('items_size_idx'), 'the new index is made');
    t.notOk(indexes.includes('items_name_idx'), 'the dropped index is gone');
    t.ok(indexes.includes('items_owner_id_idx'), 'the unchanged index stays');
    t.ok(indexes.includes('items_name_note_fulltext_simple'), 'the changed @fullText has its index');
    t.notOk(indexes.includes('items_name_gone_fulltext_english'), 'and the old one is gone');

    const labels = async (type: string) =>
      (
        await execute<{ label: string }>(
          db.kysely,
          `select e.enumlabel as label from pg_enum e join pg_type t on t.oid = e.enumtypid join pg_namespace n on n.oid = t.typnamespace where n.nspname = $1 and t.typname = $2 order by e.enumsortorder`,
          [schema, type],
        )
      ).map((r) => r.label);
    const colour = after.enums.find((e) => e.name === 'Colour')!.pgName;
    t.same(await labels(colour), ['RED', 'BLUE', 'YELLOW'], 'a removed enum value is gone, an added one is there');
    t.same(await labels(after.enums.find((e) => e.name === 'Shape')!.pgName), ['ROUND', 'SQUARE']);

    const migrated = createEntityStore({ db: db.kysely, model: after, ...opts(schema) });
    t.match(
      await migrated.get('Item', 'a'),
      { id: 'a', name: 'first', size: 3n, colour: 'BLUE', tags: ['x'], ownerId: 'o', shape: null, note: null },
      'the rows keep their values, cast to the new types',
    );
    await migrated.flush({
      operations: [
        { entity: 'Item', id: 'b', height: 3, op: 'set', data: { id: 'b', name: null, size: 10n ** 20n, colour: 'YELLOW', shape: 'ROUND', sizes: [1, 2] } },
      ],
    });
    t.match(await migrated.get('Item', 'b'), { size: 10n ** 20n, colour: 'YELLOW', shape: 'ROUND', sizes: [1, 2] });
    const found = await execute<{ id: string; tsv: string }>(
      db.kysely,
      `select id, _tsv::text as tsv from ${quoteIdent(schema)}.items where _tsv @@ plainto_tsquery('simple', 'FIRST') and upper_inf(__block_range)`,
    );
    t.same(found, [{ id: 'a', tsv: "'first':1" }], 'the new document (name and note, in simple) is generated for the rows there were');
    t.same(await migrated.getMetadata(['schemaMigrationCount']), { schemaMigrationCount: 1 });
    t.same(await migrated.getMetadata('schema'), JSON.parse(JSON.stringify(after)), 'the new model is stored with the DDL');
  });
});

t.test('a field changing type keeps its values, converted through what the store writes', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const from = parseSchema(`enum Kind { A B }
type Row @entity { id: ID!, counts: [Int], hash: String, blob: Bytes, when: String, at: Date, one: Int, tags: [String], kinds: [Kind], day: Date }`);
    const to = parseSchema(`enum Kind { A B }
type Row @entity { id: ID!, counts: [BigInt], hash: Bytes, blob: String, when: Date, at: String, one: [Int], tags: [Kind], kinds: [String], day: [Date] }`);
    await prepareProjectSchema(db.kysely, from, opts(schema));
    const store = createEntityStore({ db: db.kysely, model: from, ...opts(schema) });
    const at = new Date('2024-02-29T12:34:56.789Z');
    const data = {
      counts: [1, null, 3],
      hash: '0xABCD',
      blob: '0x0102',
      when: '2024-02-29T12:34:56.789Z',
      at,
      one: 7,
      tags: ['B', 'A'],
      kinds: ['A'],
      day: at,
    };
    await store.flush({
      operations: [
        { entity: 'Row', id: 'r', height: 1, op: 'set', data: { id: 'r', ...data } },
        { entity: 'Row', id: 'empty', height: 1, op: 'set', data: { id: 'empty', counts: [], tags: [] } },
      ],
    });
    await migrateEntitySchema(db.kysely, from, to, diffSchemas(from, to), { ...opts(schema), metadata: { schema: to } });
    const migrated = createEntityStore({ db: db.kysely, model: to, ...opts(schema) });
    t.same(await migrated.get('Row', 'r'), {
      id: 'r',
      counts: [1n, null, 3n],
      hash: '0xabcd',
      blob: '0x0102',
      when: at,
      at: '2024-02-29T12:34:56.789Z',
      one: [7],
      tags: ['B', 'A'],
      kinds: ['A'],
      day: [at],
    });
    t.match(await migrated.get('Row', 'empty'), { counts: [], tags: [], one: null, day: null }, 'empty lists stay empty, nulls null');
  });
});

t.test('a change the rows cannot take is refused and changes nothing', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const before = parseSchema(BEFORE);
    await prepareProjectSchema(db.kysely, before, opts(schema));
    const store = createEntityStore({ db: db.kysely, model: before, ...opts(schema) });
    await store.flush({
      operations: [{ entity: 'Item', id: 'a', height: 1, op: 'set', data: { id: 'a', name: 'first', size: 3, colour: 'GREEN' } }],
      metadata: { schema: before },
    });

    const required = parseSchema(BEFORE.replace('gone: String', 'gone: String\n  needed: Int!').replace('type Old @entity { id: ID!, x: Int }', ''));
    await t.rejects(migrateEntitySchema(db.kysely, before, required, diffSchemas(before, required), { ...opts(schema), metadata: { schema: required } }), {
      code: 'SCHEMA_MIGRATION_REFUSED',
      message: /Item: added field needed: Int! is required, but items already has rows/,
    });
    const noGreen = parseSchema(BEFORE.replace('RED GREEN BLUE', 'RED BLUE'));
    await t.rejects(migrateEntitySchema(db.kysely, before, noGreen, diffSchemas(before, noGreen), { ...opts(schema), metadata: { schema: noGreen } }), {
      code: 'SCHEMA_MIGRATION_FAILED',
      message: /enum Colour: removed GREEN.*GREEN/,
    });
    const [olds] = await execute<{ n: number }>(
      db.kysely,
      `select count(*)::int n from information_schema.tables where table_schema = $1 and table_name = 'olds'`,
      [schema],
    );
    t.equal(olds?.n, 1, 'nothing was dropped');
    t.match(await store.get('Item', 'a'), { colour: 'GREEN' });
    t.same(await store.getMetadata('schema'), JSON.parse(JSON.stringify(before)));
  });
});

t.test("a field createdAt added moves idx's created_at aside, keeping its times; dropped, gives the name back", async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const v1 = parseSchema('type Domain @entity { id: ID!, name: String }');
    const v2 = parseSchema('type Domain @entity { id: ID!, name: String, createdAt: BigInt, updatedAt: Date }');
    await prepareProjectSchema(db.kysely, v1, opts(schema));
    await createEntityStore({ db: db.kysely, model: v1, ...opts(schema) }).flush({
      operations: [{ entity: 'Domain', id: 'a', height: 1, op: 'set', data: { id: 'a', name: 'x' } }],
    });
    const stamp = async (column: string) =>
      (await execute<{ t: string }>(db.kysely, `select ${column}::text as t from "${schema}".domains where id = 'a'`))[0]!.t;
    const created = await stamp('created_at');
    const columns = async () =>
      (
        await execute<{ c: string }>(
          db.kysely,
          `select column_name || ':' || data_type as c from information_schema.columns where table_schema = $1 and table_name = 'domains' order by column_name`,
          [schema],
        )
      ).map((r) => r.c);

    await migrateEntitySchema(db.kysely, v1, v2, diffSchemas(v1, v2), { ...opts(schema), metadata: { schema: v2 } });
    t.same(await columns(), [
      '__block_range:int8range',
      '__created_at:timestamp with time zone',
      '__updated_at:timestamp with time zone',
      'created_at:numeric',
      'id:text',
      'name:text',
      'updated_at:timestamp without time zone',
    ]);
    t.equal(await stamp('__created_at'), created, "idx's time moved with its column");
    const store = createEntityStore({ db: db.kysely, model: v2, ...opts(schema) });
    await store.flush({ operations: [{ entity: 'Domain', id: 'b', height: 2, op: 'set', data: { id: 'b', createdAt: 7n } }] });
    t.match(await store.get('Domain', 'b'), { createdAt: 7n, updatedAt: null });

    await migrateEntitySchema(db.kysely, v2, v1, diffSchemas(v2, v1), { ...opts(schema), metadata: { schema: v1 } });
    t.same(await columns(), ['__block_range:int8range', 'created_at:timestamp with time zone', 'id:text', 'name:text', 'updated_at:timestamp with time zone']);
    t.equal(await stamp('created_at'), created, 'and back');
  });
});

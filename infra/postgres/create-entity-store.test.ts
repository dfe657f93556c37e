import t from 'tap';
import type { EntityData, StoreOperation } from '../../domain/entities/entity-store.ts';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { IdxError } from '../../domain/errors.ts';
import { createEntityStore } from './create-entity-store.ts';
import { entityTableSql } from './entity-table-sql.ts';
import { JOIN_BY_INDEX } from './entity-write-statements.ts';
import { intArray, textArray } from './pg-arrays.ts';
import { prepareProjectSchema } from './prepare-project-schema.ts';
import { execute } from './sql.ts';
import { createTestBackends, type TestBackend } from '../../test/support/test-backends.ts';
import { counterModel, everyTypeModel } from '../../test/support/test-models.ts';

const backends = createTestBackends(t);
// Date columns hold UTC and read back as UTC whatever the process's zone (utc-timestamps.ts)
process.env.TZ = 'America/New_York';

async function columnsOf(b: TestBackend, table: string): Promise<Record<string, string>> {
  const rows = await execute<{ column_name: string; udt_name: string; is_nullable: string }>(
    b.db.kysely,
    `select column_name, udt_name, is_nullable from information_schema.columns where table_schema = $1 and table_name = $2 order by ordinal_position`,
    [b.schema, table],
  );
  return Object.fromEntries(rows.map((r) => [r.column_name, `${r.udt_name}${r.is_nullable === 'NO' ? ' not null' : ''}`]));
}

async function indexesOf(b: TestBackend, table: string): Promise<string[]> {
  const rows = await execute<{ indexdef: string }>(b.db.kysely, `select indexdef from pg_indexes where schemaname = $1 and tablename = $2 order by indexname`, [
    b.schema,
    table,
  ]);
  // Drop the schema-qualified table name so expectations read the same on every run.
  return rows.map((r) => r.indexdef.replace(`${b.schema}.`, '').replace(/ INDEX \S+ ON /, ' INDEX ON '));
}

async function versionsOf(b: TestBackend, table: string): Promise<string[]> {
  const rows = await execute<{ id: string; r: string }>(
    b.db.kysely,
    `select id, __block_range::text as r from "${b.schema}"."${table}" order by id, lower(__block_range)`,
  );
  return rows.map((r) => `${r.id} ${r.r}`);
}

const set = (entity: string, id: string, height: number, data: EntityData): StoreOperation => ({ entity, id, height, op: 'set', data: { id, ...data } });
const remove = (entity: string, id: string, height: number): StoreOperation => ({ entity, id, height, op: 'remove' });

t.test('historical DDL: columns, types and indexes as the model says; run twice is harmless', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    const options = { schema: b.schema, historical: true, timestampField: true };
    t.same(await prepareProjectSchema(b.db.kysely, model, options), ['0001_internal_tables.sql', '0002_poi_block_hash.sql']);
    t.same(await prepareProjectSchema(b.db.kysely, model, options), [], 'migrations run once');

    t.same(await columnsOf(b, 'every_types'), {
      id: 'text not null',
      str: 'text not null',
      int: 'int4',
      big: 'numeric',
      float: 'float8',
      flag: 'bool',
      date: 'timestamp',
      bytes: 'bytea',
      decimal: 'numeric',
      json: 'jsonb',
      kind: 'transfer_kind',
      kinds: '_transfer_kind',
      strs: 'jsonb',
      ints: 'jsonb',
      bigs: 'jsonb',
      dates: 'jsonb',
      flags: 'jsonb',
      meta: 'jsonb',
      owner_id: 'text',
      created_at: 'timestamptz not null',
      updated_at: 'timestamptz not null',
      __block_range: 'int8range not null',
    });
    t.same(
      await columnsOf(b, 'accounts'),
      {
        id: 'text not null',
        name: 'text',
        created_at: 'timestamptz not null',
        updated_at: 'timestamptz not null',
        __block_range: 'int8range not null',
      },
      'a @derivedFrom field has no column',
    );

    // field indexes of a historical table end with the versions' first height (reads at a past height skip in the index)
    t.same(await indexesOf(b, 'every_types'), [
      'CREATE INDEX ON every_types USING btree (big, lower(__block_range))',
      'CREATE UNIQUE INDEX ON every_types USING btree (bytes) WHERE upper_inf(__block_range)',
      'CREATE UNIQUE INDEX ON every_types USING btree (id) WHERE upper_inf(__block_range)',
      'CREATE INDEX ON every_types USING btree (id, lower(__block_range))',
      'CREATE INDEX ON every_types USING btree (owner_id, lower(__block_range))',
    ]);
    const constraints = await execute<{ contype: string }>(
      b.db.kysely,
      `select c.contype from pg_constraint c join pg_class r on r.oid = c.conrelid join pg_namespace n on n.oid = r.relnamespace where n.nspname = $1`,
      [b.schema],
    );
    t.notOk(
      constraints.some((c) => c.contype === 'x'),
      'no exclusion constraint',
    );
    t.same(await columnsOf(b, '_metadata'), { key: 'text not null', value: 'jsonb' });
    t.same(
      await indexesOf(b, '_poi'),
      ['CREATE INDEX ON _poi USING btree (chain_block_hash)', 'CREATE UNIQUE INDEX ON _poi USING btree (id)'],
      'a block found by its hash',
    );
    t.same(await columnsOf(b, '_poi'), {
      id: 'int8 not null',
      chain_block_hash: 'bytea',
      hash: 'bytea',
      parent_hash: 'bytea',
      operation_hash_root: 'bytea',
    });
    const ext = await execute(b.db.kysely, `select 1 from pg_extension where extname = 'btree_gist'`);
    t.equal(ext.length, 1, 'btree_gist is enabled');
  }),
);

t.test('DDL from a parsed schema.graphql: relations, composite indexes, JSON types', (t) =>
  backends.each(t, async (t, b) => {
    const model = parseSchema(`
      enum Kind { IN, OUT }
      type Account @entity { id: ID!, name: String, sent: [Transfer] @derivedFrom(field: "from") }
      type Transfer @entity @compositeIndexes(fields: [["from", "to"]]) {
        id: ID!, from: Account!, to: Account, value: BigInt! @index, kind: Kind, tags: [String!], meta: Meta, hash: Bytes @index(unique: true)
      }
      type Meta @jsonField { a: Int }
    `);
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: false, changesIndex: true });
    t.same(await columnsOf(b, 'transfers'), {
      id: 'text not null',
      from_id: 'text not null',
      to_id: 'text',
      value: 'numeric not null',
      kind: 'kind',
      tags: 'jsonb',
      meta: 'jsonb',
      hash: 'bytea',
      __block_range: 'int8range not null',
    });
    t.same(
      await indexesOf(b, 'transfers'),
      [
        'CREATE INDEX ON transfers USING btree (from_id, lower(__block_range))',
        'CREATE INDEX ON transfers USING btree (from_id, to_id, lower(__block_range))',
        'CREATE UNIQUE INDEX ON transfers USING btree (hash) WHERE upper_inf(__block_range)',
        'CREATE UNIQUE INDEX ON transfers USING btree (id) WHERE upper_inf(__block_range)',
        'CREATE INDEX ON transfers USING btree (id, lower(__block_range))',
        'CREATE INDEX ON transfers USING btree (lower(__block_range), id)',
        'CREATE INDEX ON transfers USING btree (to_id, lower(__block_range))',
        'CREATE INDEX ON transfers USING btree (upper(__block_range), id) WHERE (NOT upper_inf(__block_range))',
        'CREATE INDEX ON transfers USING btree (value, lower(__block_range))',
      ],
      'with --changes-index, versions by the heights they began and ended',
    );
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: false });
    await store.flush({
      operations: [set('Transfer', 't1', 1, { fromId: 'a1', toId: null, value: 5n, kind: 'OUT', tags: ['x'], meta: { a: 1 }, hash: '0xAB' })],
    });
    t.same(await store.get('Transfer', 't1'), { id: 't1', fromId: 'a1', toId: null, value: 5n, kind: 'OUT', tags: ['x'], meta: { a: 1 }, hash: '0xab' });
    t.same(
      (await store.getByField('Transfer', 'from', 'a1')).map((e) => e.id),
      ['t1'],
    );
  }),
);

t.test('plain DDL (--disable-historical, --timestamp-field=false): id primary key, no ranges, no timestamps', (t) =>
  backends.each(t, async (t, b) => {
    await prepareProjectSchema(b.db.kysely, everyTypeModel(), { schema: b.schema, historical: false, timestampField: false });
    const cols = await columnsOf(b, 'accounts');
    t.same(cols, { id: 'text not null', name: 'text' });
    t.same(await indexesOf(b, 'accounts'), ['CREATE UNIQUE INDEX ON accounts USING btree (id)']);
    t.match((await indexesOf(b, 'every_types')).join('\n'), 'CREATE UNIQUE INDEX ON every_types USING btree (bytes)\n');
  }),
);

t.test('enum values added to the schema later are added to the type', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    const options = { schema: b.schema, historical: true, timestampField: true };
    await prepareProjectSchema(b.db.kysely, model, options);
    model.enums[0]!.values.push('BURN');
    await prepareProjectSchema(b.db.kysely, model, options);
    const labels = await execute<{ l: string }>(b.db.kysely, `select unnest(enum_range(null::"${b.schema}".transfer_kind))::text as l`);
    t.same(
      labels.map((r) => r.l),
      ['IN', 'OUT', 'SELF', 'BURN'],
    );
  }),
);

const EVERY: EntityData = {
  id: 'e1',
  // COPY's delimiters and escapes too: tab, newline, carriage return, a literal \N and \t
  str: "quote \" back\\slash , {braces} 'single' ünï\ttab\nline\r\\N \\t",
  int: -2147483648,
  big: 2n ** 200n,
  float: 1.5e-300,
  flag: false,
  date: new Date('2024-02-29T12:34:56.789Z'),
  bytes: '0xdeadbeef',
  decimal: '-12345678901234567890.000000000123',
  json: { a: [1, 'two', null, { three: true }], big: '1', text: 'a\tb\nc\\d "q" \\N' },
  kind: 'SELF',
  kinds: ['IN', 'OUT', null],
  strs: ['a', '', null, 'NULL', 'with,comma', 'with "quote"', '{}', 'tab\there', 'line\nbreak', '\\N'],
  ints: [1, -2, 3],
  bigs: [0n, -(10n ** 40n), null],
  dates: [new Date(0), null],
  flags: [true, false, null],
  meta: { nested: { deep: [1, 2] } },
  ownerId: 'acc1',
};

t.test('every scalar type, list, enum, JSON and relation round-trips', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    const empty: EntityData = { id: 'e2', str: 'only required' };
    await store.flush({
      operations: [
        { entity: 'EveryType', id: 'e1', height: 1, op: 'set', data: { ...EVERY, bytes: Uint8Array.from([0xde, 0xad, 0xbe, 0xef]) } },
        { entity: 'EveryType', id: 'e2', height: 1, op: 'set', data: empty },
        { entity: 'EveryType', id: 'e3', height: 1, op: 'set', data: { id: 'e3', str: 'x', bytes: '0xABCDEF', float: NaN, big: -1n } },
        { entity: 'EveryType', id: 'e\t4\n\\N', height: 1, op: 'set', data: { id: 'e\t4\n\\N', str: '\\' } },
      ],
    });
    t.equal((await store.get('EveryType', 'e\t4\n\\N'))?.str, '\\', 'an id with a tab, a newline and a backslash round-trips');
    const got = await store.get('EveryType', 'e1');
    t.same(got, EVERY);
    t.type(got!.big, 'bigint', 'a BigInt column reads back as bigint');
    t.ok(got!.date instanceof Date);
    const [raw] = await execute<Record<string, string>>(
      b.db.kysely,
      `select date::text, bytes::text, strs::text, ints::text, bigs::text, dates::text, flags::text, kinds::text from "${b.schema}".every_types where id = 'e1'`,
    );
    t.same(
      raw,
      {
        date: '2024-02-29 12:34:56.789',
        bytes: '\\xdeadbeef',
        strs: JSON.stringify(EVERY.strs).replace(/,/g, ', ').replace('"with, comma"', '"with,comma"'),
        ints: '[1, -2, 3]',
        bigs: '["0", "-10000000000000000000000000000000000000000", null]',
        dates: '["1970-01-01T00:00:00.000Z", null]',
        flags: '[true, false, null]',
        kinds: '{IN,OUT,NULL}',
      },
      "stored as SubQuery's store stores them: the UTC time, bytea, jsonb lists (BigInt as strings), enum arrays",
    );
    t.same(
      await store.get('EveryType', 'e2'),
      {
        id: 'e2',
        str: 'only required',
        int: null,
        big: null,
        float: null,
        flag: null,
        date: null,
        bytes: null,
        decimal: null,
        json: null,
        kind: null,
        kinds: null,
        strs: null,
        ints: null,
        bigs: null,
        dates: null,
        flags: null,
        meta: null,
        ownerId: null,
      },
      'unset fields read back as null',
    );
    const e3 = await store.get('EveryType', 'e3');
    t.equal(e3!.bytes, '0xabcdef', 'bytes are stored as lowercase hex');
    t.ok(Number.isNaN(e3!.float));
    t.same(
      (await store.getByField('EveryType', 'bytes', '0xABCDEF')).map((e) => e.id),
      ['e3'],
      'bytes filters compare in lowercase',
    );
    t.same(
      (await store.getByField('EveryType', 'big', 2n ** 200n)).map((e) => e.id),
      ['e1'],
    );
    t.same(
      (await store.getByField('EveryType', 'owner', 'acc1')).map((e) => e.id),
      ['e1'],
      'a relation is found by field name',
    );
    t.same(
      (await store.getByField('EveryType', 'ownerId', 'acc1')).map((e) => e.id),
      ['e1'],
      '... and by property name',
    );
    t.same(
      (await store.getByField('EveryType', 'kind', ['SELF', 'IN'])).map((e) => e.id),
      ['e1'],
    );
    t.same(await store.get('EveryType', 'nope'), undefined);

    const bad = (data: EntityData) =>
      store.flush({ operations: [{ entity: 'EveryType', id: 'bad', height: 2, op: 'set', data: { id: 'bad', str: 's', ...data } }] });
    await t.rejects(bad({ int: 1.5 }), { code: 'STORE_INVALID_VALUE', message: /EveryType\.int: expected a 32-bit integer, got 1\.5/ });
    await t.rejects(bad({ big: 'ten' }), { code: 'STORE_INVALID_VALUE', message: /EveryType\.big: expected a bigint/ });
    await t.rejects(bad({ bytes: 'zz' }), { code: 'STORE_INVALID_VALUE', message: /EveryType\.bytes: expected bytes/ });
    await t.rejects(bad({ str: null }), { code: 'STORE_INVALID_VALUE', message: /EveryType\.str: expected a value \(the field is required\)/ });
    await t.rejects(bad({ ints: [1, null] }), { code: 'STORE_INVALID_VALUE' });
    await t.rejects(bad({ kind: 'NOT_A_KIND' }), { code: 'STORE_WRITE_FAILED', message: /transfer_kind/ });
    // A bad value after the first chunk of rows has reached the server: the COPY is abandoned, the
    // connection stays usable.
    const many: StoreOperation[] = Array.from({ length: 5000 }, (_, i) => ({
      entity: 'EveryType',
      id: `m${i}`,
      height: 2,
      op: 'set',
      data: { id: `m${i}`, str: 's' },
    }));
    many.push({ entity: 'EveryType', id: 'bad', height: 2, op: 'set', data: { id: 'bad', str: 's', int: 'x' } });
    await t.rejects(store.flush({ operations: many }), { code: 'STORE_INVALID_VALUE', message: /EveryType\.int/ });
    t.same(await store.get('EveryType', 'm1'), undefined, 'a flush failing mid-COPY wrote nothing');
    await t.rejects(store.flush({ operations: [set('Nope', 'x', 1, {})] }), { code: 'STORE_UNKNOWN_ENTITY' });
    await t.rejects(store.getByField('EveryType', 'nope', 1), { code: 'STORE_UNKNOWN_FIELD' });
    t.same(await store.get('EveryType', 'bad'), undefined, 'failed flushes wrote nothing');
  }),
);

t.test('versions: last write in a block wins, updates close ranges, remove closes, reads at every height', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.flush({
      operations: [
        set('Counter', 'a', 10, { value: 1 }),
        set('Counter', 'b', 10, { value: 100 }),
        set('Counter', 'a', 12, { value: 2 }),
        set('Counter', 'a', 12, { value: 3 }),
      ],
      metadata: { lastProcessedHeight: 12 },
    });
    await store.flush({ operations: [remove('Counter', 'a', 15), set('Counter', 'b', 15, { value: 101 })], metadata: { lastProcessedHeight: 15 } });
    await store.flush({
      operations: [set('Counter', 'a', 20, { value: 4 }), remove('Counter', 'b', 20), set('Counter', 'b', 20, { value: 102 }), remove('Counter', 'b', 20)],
    });
    t.same(await versionsOf(b, 'counters'), ['a [10,12)', 'a [12,15)', 'a [20,)', 'b [10,15)', 'b [15,20)']);
    const valueAt = async (id: string, h?: number) => (await store.get('Counter', id, h))?.value;
    t.same(await Promise.all([9, 10, 11, 12, 14, 15, 19, 20, 1000].map((h) => valueAt('a', h))), [undefined, 1, 1, 3, 3, undefined, undefined, 4, 4]);
    t.same(await Promise.all([9, 10, 14, 15, 19, 20].map((h) => valueAt('b', h))), [undefined, 100, 100, 101, 101, undefined]);
    t.equal(await valueAt('a'), 4, 'without a height: the live version');
    t.equal(await valueAt('b'), undefined);

    // The same block flushed in two parts: the later part replaces, no empty range is left.
    await store.flush({ operations: [set('Counter', 'c', 30, { value: 1 }), set('Counter', 'a', 30, { value: 5 })] });
    await store.flush({ operations: [set('Counter', 'c', 30, { value: 2 }), set('Counter', 'a', 30, { value: 6 })] });
    t.same(await versionsOf(b, 'counters'), ['a [10,12)', 'a [12,15)', 'a [20,30)', 'a [30,)', 'b [10,15)', 'b [15,20)', 'c [30,)']);
    t.equal(await valueAt('c', 30), 2);
    t.equal(await valueAt('a', 30), 6);
    await store.flush({ operations: [remove('Counter', 'c', 31), remove('Counter', 'never', 31)] });
    t.same(
      await versionsOf(b, 'counters'),
      ['a [10,12)', 'a [12,15)', 'a [20,30)', 'a [30,)', 'b [10,15)', 'b [15,20)', 'c [30,31)'],
      'removing an unknown id is a no-op',
    );
    t.same(await store.getMetadata('lastProcessedHeight'), 15);
  }),
);

t.test('rewind: versions born later go, versions closed later reopen, _poi and lastProcessedHeight follow', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    const poi = (h: number) => ({
      id: h,
      chainBlockHash: Uint8Array.of(h),
      hash: Uint8Array.of(h, 1),
      parentHash: Uint8Array.of(h - 1, 1),
      operationHashRoot: null,
    });
    await store.flush({
      operations: [set('Counter', 'a', 10, { value: 1 }), set('Counter', 'b', 10, { value: 1 })],
      poi: [poi(10)],
      metadata: { lastProcessedHeight: 10 },
    });
    await store.flush({
      operations: [set('Counter', 'a', 12, { value: 2 }), remove('Counter', 'b', 12)],
      poi: [poi(12)],
      metadata: { lastProcessedHeight: 12 },
    });
    await store.flush({
      operations: [set('Counter', 'a', 14, { value: 3 }), set('Counter', 'c', 14, { value: 1 })],
      poi: [poi(14)],
      metadata: { lastProcessedHeight: 14 },
    });

    await store.rewind(13, { unfinalizedBlocks: [] });
    t.same(await versionsOf(b, 'counters'), ['a [10,12)', 'a [12,)', 'b [10,12)']);
    t.same(await store.getMetadata(['lastProcessedHeight', 'unfinalizedBlocks']), { lastProcessedHeight: 13, unfinalizedBlocks: [] });
    t.same(
      (await store.getPoi(0, 100)).map((p) => p.id),
      [10, 12],
    );

    await store.rewind(11);
    t.same(await versionsOf(b, 'counters'), ['a [10,)', 'b [10,)'], 'a removed entity comes back');
    t.same(
      (await store.getPoi(0, 100)).map((p) => p.id),
      [10],
    );
    // writing after a rewind continues the history
    await store.flush({ operations: [set('Counter', 'b', 12, { value: 9 })] });
    t.same(await versionsOf(b, 'counters'), ['a [10,)', 'b [10,12)', 'b [12,)']);
    await store.rewind(9);
    t.same(await versionsOf(b, 'counters'), []);
    t.equal(await store.getMetadata('lastProcessedHeight'), 9);
  }),
);

t.test('getByFields: operators, order, paging and reads at a height', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.flush({
      operations: ['a', 'b', 'c', 'd', 'e'].map((id, i) => set('Counter', id, 1, { value: i % 2, label: i === 4 ? null : `L${i}`, total: BigInt(10 - i) })),
    });
    await store.flush({ operations: [set('Counter', 'a', 5, { value: 7, label: 'L0', total: 10n })] });
    const ids = (rows: EntityData[]) => rows.map((r) => r.id);
    t.same(ids(await store.getByFields('Counter', [['value', '=', 0]])), ['c', 'e']);
    t.same(ids(await store.getByFields('Counter', [['value', '=', 0]], {}, 4)), ['a', 'c', 'e']);
    t.same(ids(await store.getByFields('Counter', [['value', '!=', 1]])), ['a', 'c', 'e']);
    t.same(ids(await store.getByFields('Counter', [['label', 'in', ['L0', 'L3']]])), ['a', 'd']);
    t.same(ids(await store.getByFields('Counter', [['label', '!in', ['L0', 'L3']]])), ['b', 'c']);
    t.same(ids(await store.getByFields('Counter', [['label', '=', null]])), ['e']);
    t.same(ids(await store.getByFields('Counter', [['label', 'in', []]])), []);
    t.same(
      ids(
        await store.getByFields('Counter', [
          ['value', '=', 0],
          ['total', 'in', [8n, 6n]],
        ]),
      ),
      ['c', 'e'],
    );
    t.same(ids(await store.getByFields('Counter', [], { orderBy: 'total', orderDirection: 'DESC', limit: 2, offset: 1 })), ['b', 'c']);
    t.same(ids(await store.getByFields('Counter', [['id', 'in', ['e', 'a']]])), ['a', 'e']);
    t.same(ids(await store.getByField('Counter', 'value', 1, { limit: 1 })), ['b']);
    await t.rejects(store.getByFields('Counter', [['value', 'like' as never, 1]]), { code: 'STORE_INVALID_VALUE' });
    await t.rejects(store.getByFields('Counter', [], { orderDirection: 'UP' as never }), { code: 'STORE_INVALID_VALUE' });
  }),
);

t.test('plain mode: upsert and delete in bulk; rewind is refused', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: false, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: false, timestampField: true });
    await store.flush({ operations: [set('Counter', 'a', 1, { value: 1 }), set('Counter', 'b', 1, { value: 1 }), set('Counter', 'a', 2, { value: 2 })] });
    await store.flush({ operations: [remove('Counter', 'b', 3), set('Counter', 'c', 3, { value: 3 }), set('Counter', 'a', 3, { value: 4, label: 'x' })] });
    const rows = await execute<{ id: string; value: number; label: string | null }>(
      b.db.kysely,
      `select id, value, label from "${b.schema}".counters order by id`,
    );
    t.same(rows, [
      { id: 'a', value: 4, label: 'x' },
      { id: 'c', value: 3, label: null },
    ]);
    t.same(await store.get('Counter', 'a'), { id: 'a', value: 4, label: 'x', total: null });
    t.same(await store.get('Counter', 'a', 1), { id: 'a', value: 4, label: 'x', total: null }, 'no history: a height reads the current row');
    const [ts] = await execute<{ later: boolean }>(b.db.kysely, `select updated_at >= created_at as later from "${b.schema}".counters where id = 'a'`);
    t.ok(ts!.later);
    await t.rejects(store.rewind(1), { code: 'REWIND_NEEDS_HISTORY' });
  }),
);

t.test('a flush is all or nothing: entity versions, _poi and metadata', (t) =>
  backends.each(t, async (t, b) => {
    const model = everyTypeModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    await store.flush({ operations: [set('EveryType', 'x', 1, { str: 'x', bytes: '0x01' })], metadata: { lastProcessedHeight: 1 } });
    // The second entity takes x's bytes while x stays live: the live-unique index refuses it.
    const failing = store.flush({
      operations: [set('Account', 'acc', 2, { name: 'n' }), set('EveryType', 'y', 2, { str: 'y', bytes: '0x01' })],
      poi: [{ id: 2, chainBlockHash: null, hash: Uint8Array.of(2), parentHash: null, operationHashRoot: null }],
      metadata: { lastProcessedHeight: 2 },
    });
    await t.rejects(failing, { code: 'STORE_WRITE_FAILED', message: /unique|duplicate/ });
    t.equal(await store.getMetadata('lastProcessedHeight'), 1);
    t.same(await store.get('Account', 'acc'), undefined);
    t.same(await store.getPoi(0, 10), []);
    // Moving the value from one id to another in one flush is fine: the old holder closes first.
    await store.flush({ operations: [remove('EveryType', 'x', 3), set('EveryType', 'y', 3, { str: 'y', bytes: '0x01' })] });
    t.same(
      (await store.getByField('EveryType', 'bytes', '0x01')).map((e) => e.id),
      ['y'],
    );
    t.same(
      (await store.getByField('EveryType', 'bytes', '0x01', {}, 2)).map((e) => e.id),
      ['x'],
    );
  }),
);

t.test('_metadata and _poi', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    t.equal(await store.getMetadata('chain'), undefined);
    await store.setMetadata({ chain: '1', genesisHash: '0xabc', targetHeight: 100, historicalStateEnabled: true, schema: { entities: [] }, big: 5n });
    await store.setMetadata({ targetHeight: 101, unfinalizedBlocks: [{ blockHeight: 1, blockHash: '0x1' }] });
    t.same(await store.getMetadata(['chain', 'targetHeight', 'historicalStateEnabled', 'schema', 'big', 'unfinalizedBlocks', 'missing']), {
      chain: '1',
      targetHeight: 101,
      historicalStateEnabled: true,
      schema: { entities: [] },
      big: '5',
      unfinalizedBlocks: [{ blockHeight: 1, blockHash: '0x1' }],
    });
    const row = (id: number) => ({
      id,
      chainBlockHash: Uint8Array.of(id, 0xff),
      hash: Uint8Array.of(1, 2, 3),
      parentHash: id === 1 ? null : Uint8Array.of(9),
      operationHashRoot: new Uint8Array(32),
    });
    await store.flush({ operations: [], poi: [row(1), row(2), row(3)] });
    await store.flush({ operations: [], poi: [{ ...row(3), hash: Uint8Array.of(7) }] });
    t.same(await store.getPoi(2, 3), [row(2), { ...row(3), hash: Uint8Array.of(7) }]);
    t.ok((await store.getPoi(1, 1))[0]!.hash instanceof Uint8Array);
    // Heights of different lengths: ordered as numbers, not as text ('9' > '10').
    await store.flush({ operations: [], poi: [row(9), row(10), row(100)] });
    t.same(
      (await store.getPoi(1, 1000)).map((p) => p.id),
      [1, 2, 3, 9, 10, 100],
    );
    t.equal((await store.getLatestPoi(10))?.id, 10);
    t.equal((await store.getLatestPoi(99))?.id, 10);
    t.equal((await store.getLatestPoi(5000))?.id, 100);
    t.equal(await store.getLatestPoi(0), undefined);
  }),
);

t.test('fields createdAt/updatedAt own created_at/updated_at; idx keeps its times in __created_at/__updated_at', (t) =>
  backends.each(t, async (t, b) => {
    const model = parseSchema(
      'type Domain @entity { id: ID!, name: String, createdAt: BigInt! @index, updatedAt: Date }\ntype Plain @entity { id: ID!, n: Int }',
    );
    for (const historical of [true, false]) {
      const schema = `${b.schema}${historical ? '' : '_plain'}`;
      await prepareProjectSchema(b.db.kysely, model, { schema, historical, timestampField: true });
      t.same(await columnsOf({ ...b, schema }, 'domains'), {
        id: 'text not null',
        name: 'text',
        created_at: 'numeric not null',
        updated_at: 'timestamp',
        __created_at: 'timestamptz not null',
        __updated_at: 'timestamptz not null',
        ...(historical && { __block_range: 'int8range not null' }),
      });
      t.same(
        Object.keys(await columnsOf({ ...b, schema }, 'plains')),
        ['id', 'n', 'created_at', 'updated_at', ...(historical ? ['__block_range'] : [])],
        'other entities keep the plain names',
      );

      const store = createEntityStore({ db: b.db.kysely, schema, model, historical, timestampField: true });
      const when = new Date('2020-01-02T03:04:05.678Z');
      await store.flush({
        operations: [set('Domain', 'a', 1, { name: 'a', createdAt: 1_700_000_000n, updatedAt: when }), set('Domain', 'b', 1, { createdAt: 5n })],
      });
      await store.flush({ operations: [set('Domain', 'a', 2, { name: 'a2', createdAt: 1_700_000_000n, updatedAt: when })] });
      t.same(await store.get('Domain', 'a'), { id: 'a', name: 'a2', createdAt: 1_700_000_000n, updatedAt: when });
      t.same(
        (await store.getByField('Domain', 'createdAt', 5n)).map((e) => e.id),
        ['b'],
      );
      t.same(
        (await store.getByFields('Domain', [], { orderBy: 'createdAt', orderDirection: 'DESC' })).map((e) => e.id),
        ['a', 'b'],
      );
      const [row] = await execute<{ own: boolean; kept: boolean }>(
        b.db.kysely,
        `select __updated_at >= __created_at as own, updated_at = '2020-01-02T03:04:05.678Z'::timestamptz as kept from "${schema}".domains where id = 'a'${historical ? ' and upper_inf(__block_range)' : ''}`,
      );
      t.same(row, { own: true, kept: true }, "the update stamps idx's column, not the field");
    }
    await execute(b.db.kysely, `drop schema "${b.schema}_plain" cascade`);
  }),
);

t.test('errors are IdxErrors with codes', async (t) => {
  t.ok(new IdxError('STORE_INTERNAL', 'y') instanceof Error);
});

t.test('emptyEntities: the types whose table holds no version at all, historical or plain', (t) =>
  backends.each(t, async (t, b) => {
    const model = parseSchema('type Account @entity { id: ID! n: Int } type Transfer @entity { id: ID! n: Int } type Token @entity { id: ID! }');
    for (const historical of [true, false]) {
      const schema = `${b.schema}_${historical ? 'h' : 'p'}`;
      await execute(b.db.kysely, `create schema "${schema}"`);
      await prepareProjectSchema(b.db.kysely, model, { schema, historical, timestampField: true });
      const store = createEntityStore({ db: b.db.kysely, schema, model, historical, timestampField: true });
      t.same((await store.emptyEntities()).sort(), ['Account', 'Token', 'Transfer']);
      await store.flush({ operations: [set('Account', 'a', 1, { n: 1 }), set('Transfer', 't', 1, { n: 1 }), remove('Transfer', 't', 2)] });
      t.same(
        (await store.emptyEntities()).sort(),
        historical ? ['Token'] : ['Token', 'Transfer'],
        'a removed entity leaves a closed version in historical mode only',
      );
      await execute(b.db.kysely, `drop schema "${schema}" cascade`);
    }
  }),
);

t.test('writesAlone: the same versions as a store not told, flush after flush, rewinds included; a row put in behind its back fails the write', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    const stores = [];
    for (const name of ['alone', 'told_nothing']) {
      const schema = `${b.schema}_${name}`;
      await execute(b.db.kysely, `create schema "${schema}"`);
      await prepareProjectSchema(b.db.kysely, model, { schema, historical: true, timestampField: true });
      stores.push({ schema, store: createEntityStore({ db: b.db.kysely, schema, model, historical: true, timestampField: true }) });
    }
    const [alone, toldNothing] = stores as [(typeof stores)[0], (typeof stores)[0]];
    alone.store.writesAlone(['Counter']);
    const versions = async (schema: string) =>
      (
        await execute<{ v: string }>(
          b.db.kysely,
          `select id || ' ' || __block_range::text || ' ' || value as v from "${schema}".counters order by id, lower(__block_range)`,
        )
      ).map((r) => r.v);
    // seeded steps over a pool of ids: new ids, ids written again in later flushes, removes, several writes to one id
    // in a block, a block flushed in two parts (the replace path), and rewinds
    let seed = 7;
    const next = (n: number) => ((seed = (seed * 1103515245 + 12345) % 2 ** 31), seed % n);
    let height = 1;
    for (let step = 0; step < 24; step++) {
      if (step % 8 === 7) {
        const to = height - 1 - next(6);
        for (const s of stores) await s.store.rewind(to);
        height = to + 1;
      } else {
        const operations: StoreOperation[] = [];
        const split = step % 5 === 4 ? height : undefined; // the last block flushed, flushed again in part
        for (let k = 0; k < 30; k++) {
          if (k % 10 === 0) height++;
          const at = split !== undefined && k < 5 ? split : height;
          const id = `c${next(step < 12 ? 20 + step * 10 : 60)}`;
          operations.push(next(5) === 0 ? remove('Counter', id, at) : set('Counter', id, at, { value: k + step * 100 }));
        }
        for (const s of stores) await s.store.flush({ operations, metadata: { lastProcessedHeight: height } });
      }
      const got = await versions(alone.schema);
      const want = await versions(toldNothing.schema);
      if (JSON.stringify(got) !== JSON.stringify(want)) t.same(got, want, `after step ${step}`);
    }
    t.ok((await versions(alone.schema)).length > 100, 'the steps left many versions to compare');
    t.same(await versions(alone.schema), await versions(toldNothing.schema), 'every version equal');

    // the unique index on live versions stands behind the store's knowledge: a live version it never stored is not
    // closed, and its next version is refused rather than left to overlap it
    await execute(b.db.kysely, `insert into "${alone.schema}".counters (id, value, __block_range) values ('ghost', 1, int8range(${height}, null))`);
    await t.rejects(alone.store.flush({ operations: [set('Counter', 'ghost', height + 1, { value: 2 })] }), /duplicate key|unique/);
    for (const s of stores) await execute(b.db.kysely, `drop schema "${s.schema}" cascade`);
  }),
);

t.test('a close finds the live versions through the live index, not by reading the whole table', (t) =>
  backends.each(t, async (t, b) => {
    const model = counterModel();
    await prepareProjectSchema(b.db.kysely, model, { schema: b.schema, historical: true, timestampField: true });
    const store = createEntityStore({ db: b.db.kysely, schema: b.schema, model, historical: true, timestampField: true });
    // many versions (a transfers-like table: ids written once), then a flush that closes a tenth as many ids
    await store.flush({ operations: Array.from({ length: 30_000 }, (_, n) => set('Counter', `t${n}`, 1, { value: n })) });
    await execute(b.db.kysely, `analyze "${b.schema}".counters`);
    const table = entityTableSql(model.entities[0]!, model, b.schema, true, undefined);
    const ids = Array.from({ length: 3_000 }, (_, n) => `new${n}`);
    const params = [textArray(ids), intArray(ids.map(() => 2))];
    // left to itself, PostgreSQL 15 and PGlite hash every version of the table here (a sequential scan)
    const plan = await b.db.kysely.transaction().execute(async (tx) => {
      await execute(tx, JOIN_BY_INDEX.sql);
      return (await execute<{ 'QUERY PLAN': string }>(tx, `explain ${table.closeSql}`, params)).map((r) => r['QUERY PLAN']).join('\n');
    });
    t.match(plan, /Index Scan using counters_id_live on counters/);
    t.notMatch(plan, /Seq Scan on counters/);
  }),
);

import t from 'tap';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { copyVersions, copyVersionsSql } from './copy-versions.ts';
import { execute, quoteIdent } from './sql.ts';

t.test('copies the versions begun by the height, those live at it open again', async (t) => {
  const sql = copyVersionsSql({ from: 'app', to: 'app-v2', table: 'accounts', columns: ['id', 'balance', '__block_range'], height: 120 });
  t.equal(
    sql.text,
    'insert into "app-v2"."accounts" ("id", "balance", "__block_range") select "id", "balance", ' +
      'case when upper_inf(__block_range) or upper(__block_range) > $1 then int8range(lower(__block_range), null) else __block_range end ' +
      'from "app"."accounts" where lower(__block_range) <= $1',
  );
  t.same(sql.params, [120]);
});

const backends = createTestBackends(t);

t.test('a schema as it was at the height: later versions left out, versions live then open again, ended ones kept', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const to = `${schema}_to`;
    await execute(db.kysely, `create schema ${quoteIdent(to)}`);
    t.teardown(() => execute(db.kysely, `drop schema ${quoteIdent(to)} cascade`));
    for (const s of [schema, to]) await execute(db.kysely, `create table ${quoteIdent(s)}.accounts (id text, balance numeric, __block_range int8range)`);
    await execute(
      db.kysely,
      `insert into ${quoteIdent(schema)}.accounts values
        ('a', 1, '[5,10)'), ('a', 2, '[10,30)'), ('a', 3, '[30,)'),
        ('b', 7, '[8,20)'), ('b', 8, '[20,)'),
        ('c', 9, '[3,12)'),
        ('d', 4, '[21,)')`,
    );
    const copied = await copyVersions(db.kysely, { from: schema, to, tables: ['accounts'], height: 20 });
    t.same(copied, { accounts: 5 });
    const rows = await execute(
      db.kysely,
      `select id, balance::text, __block_range::text as r from ${quoteIdent(to)}.accounts order by id, lower(__block_range)`,
    );
    t.same(rows, [
      { id: 'a', balance: '1', r: '[5,10)' },
      { id: 'a', balance: '2', r: '[10,)' },
      { id: 'b', balance: '7', r: '[8,20)' },
      { id: 'b', balance: '8', r: '[20,)' },
      { id: 'c', balance: '9', r: '[3,12)' },
    ]);
  });
});

t.test("the target's indexes are there after the copy, and used", async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const to = `${schema}_to`;
    await execute(db.kysely, `create schema ${quoteIdent(to)}`);
    t.teardown(() => execute(db.kysely, `drop schema ${quoteIdent(to)} cascade`));
    for (const s of [schema, to]) {
      await execute(db.kysely, `create table ${quoteIdent(s)}.transfers (_id serial primary key, id text, value numeric, __block_range int8range)`);
      await execute(db.kysely, `create index transfers_value on ${quoteIdent(s)}.transfers (value)`);
      await execute(db.kysely, `create unique index transfers_live on ${quoteIdent(s)}.transfers (id) where upper_inf(__block_range)`);
    }
    await execute(db.kysely, `insert into ${quoteIdent(schema)}.transfers (id, value, __block_range) values ('a', 1, '[1,4)'), ('a', 2, '[4,)')`);
    await db.kysely.transaction().execute((tx) => copyVersions(tx, { from: schema, to, tables: ['transfers'], height: 9 }));
    const indexes = await execute<{ indexname: string }>(db.kysely, 'select indexname from pg_indexes where schemaname = $1 order by indexname', [to]);
    t.same(
      indexes.map((i) => i.indexname),
      ['transfers_live', 'transfers_pkey', 'transfers_value'],
    );
    await t.rejects(
      execute(db.kysely, `insert into ${quoteIdent(to)}.transfers (id, value, __block_range) values ('a', 3, '[9,)')`),
      'the unique live index holds',
    );
  });
});

t.test("the target's triggers fire for none of the copied rows, and are on again after", async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const to = `${schema}_to`;
    await execute(db.kysely, `create schema ${quoteIdent(to)}`);
    t.teardown(() => execute(db.kysely, `drop schema ${quoteIdent(to)} cascade`));
    for (const s of [schema, to]) await execute(db.kysely, `create table ${quoteIdent(s)}.notes (id text, __block_range int8range)`);
    await execute(db.kysely, `create table ${quoteIdent(to)}.fired (id text)`);
    await execute(
      db.kysely,
      `create function ${quoteIdent(to)}.note_fired() returns trigger language plpgsql as $$ begin insert into ${quoteIdent(to)}.fired values (new.id); return new; end $$`,
    );
    await execute(db.kysely, `create trigger fired after insert on ${quoteIdent(to)}.notes for each row execute function ${quoteIdent(to)}.note_fired()`);
    await execute(db.kysely, `insert into ${quoteIdent(schema)}.notes values ('a', '[1,)')`);
    await db.kysely.transaction().execute((tx) => copyVersions(tx, { from: schema, to, tables: ['notes'], height: 5 }));
    t.same(await execute(db.kysely, `select id from ${quoteIdent(to)}.fired`), [], 'not fired by the copy');
    await execute(db.kysely, `insert into ${quoteIdent(to)}.notes values ('b', '[6,)')`);
    t.same(await execute(db.kysely, `select id from ${quoteIdent(to)}.fired`), [{ id: 'b' }], 'fired by a later write');
  });
});

t.test('a column the reused table lacks takes its default', async (t) => {
  await backends.each(t, async (t, { db, schema }) => {
    const to = `${schema}_to`;
    await execute(db.kysely, `create schema ${quoteIdent(to)}`);
    t.teardown(() => execute(db.kysely, `drop schema ${quoteIdent(to)} cascade`));
    await execute(db.kysely, `create table ${quoteIdent(schema)}.notes (id text, __block_range int8range)`);
    await execute(db.kysely, `create table ${quoteIdent(to)}.notes (id text, created_at text not null default 'now', __block_range int8range)`);
    await execute(db.kysely, `insert into ${quoteIdent(schema)}.notes values ('a', '[1,)')`);
    await db.kysely.transaction().execute((tx) => copyVersions(tx, { from: schema, to, tables: ['notes'], height: 5 }));
    t.same(await execute(db.kysely, `select id, created_at, __block_range::text as r from ${quoteIdent(to)}.notes`), [
      { id: 'a', created_at: 'now', r: '[1,)' },
    ]);
  });
});

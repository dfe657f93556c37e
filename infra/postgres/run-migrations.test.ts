import t from 'tap';
import { loadMigrations, runMigrations, type Migration } from './run-migrations.ts';
import { execute } from './sql.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';

const backends = createTestBackends(t);

t.test('the shipped migrations load in order', async (t) => {
  const all = await loadMigrations();
  t.ok(all.length >= 1);
  t.equal(all[0]!.name, '0001_internal_tables.sql');
  t.same(
    all.map((m) => m.name),
    [...all.map((m) => m.name)].sort(),
  );
});

t.test('concurrent starts apply each migration exactly once; later ones are added once', (t) =>
  backends.each(t, async (t, b) => {
    // Not idempotent on purpose: a second run would fail on the existing table.
    const first: Migration[] = [{ name: '0001_a.sql', sql: 'create table once (x int); insert into once values (1);' }];
    const results = await Promise.all(Array.from({ length: 6 }, () => runMigrations(b.db.kysely, b.schema, first)));
    t.same(
      results.filter((r) => r.length > 0),
      [['0001_a.sql']],
      'one start applied it, the others found it done',
    );
    const second = [...first, { name: '0002_b.sql', sql: 'insert into once values (2);' }];
    const again = await Promise.all([runMigrations(b.db.kysely, b.schema, second), runMigrations(b.db.kysely, b.schema, second)]);
    t.same(again.flat(), ['0002_b.sql']);
    t.same(
      (await execute<{ x: number }>(b.db.kysely, `select x from "${b.schema}".once order by x`)).map((r) => r.x),
      [1, 2],
    );
    t.same(
      (await execute<{ name: string }>(b.db.kysely, `select name from "${b.schema}"._migrations order by name`)).map((r) => r.name),
      ['0001_a.sql', '0002_b.sql'],
    );
  }),
);

t.test('a failing migration names itself and leaves nothing half-applied', (t) =>
  backends.each(t, async (t, b) => {
    const broken: Migration[] = [
      { name: '0001_ok.sql', sql: 'create table fine (x int);' },
      { name: '0002_bad.sql', sql: 'create table nope (x no_such_type);' },
    ];
    await t.rejects(runMigrations(b.db.kysely, b.schema, broken), {
      code: 'MIGRATION_FAILED',
      message: new RegExp(`migration 0002_bad.sql failed in schema "${b.schema}": .*no_such_type`),
    });
    const tables = await execute(b.db.kysely, `select 1 from information_schema.tables where table_schema = $1 and table_name in ('fine', '_migrations')`, [
      b.schema,
    ]);
    t.equal(tables.length, 0);
  }),
);

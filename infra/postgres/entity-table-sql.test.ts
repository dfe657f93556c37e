import t from 'tap';
import { entityTableSql } from './entity-table-sql.ts';
import { counterModel } from '../../test/support/test-models.ts';

const model = counterModel();
const counter = model.entities[0]!;

t.test('the statements of a historical table with idx times', async (t) => {
  const table = entityTableSql(counter, model, 'app', true, undefined);
  t.equal(table.name, '"app"."counters"');
  t.same([...table.lookup.keys()], ['id', 'value', 'label', 'total'], 'fields, properties and columns find their codec');
  t.equal(table.lookup.get('id'), null);
  t.equal(table.selectList, 'id, "value", "label", "total"');
  t.equal(table.copySql, 'copy "app"."counters" (id, "value", "label", "total", __block_range) from stdin');
  t.equal(table.chainField, '');
  t.equal(
    table.closeSql,
    'with u as (select * from unnest($1::text[], $2::int8[]) as u(id, h)) update "app"."counters" t set __block_range = int8range(lower(t.__block_range), u.h) ' +
      'from u where t.id = u.id and upper_inf(t.__block_range) and lower(t.__block_range) < u.h',
  );
  t.equal(
    table.closeReplaceSql,
    'with u as (select * from unnest($1::text[], $2::int8[]) as u(id, h)), replaced as (delete from "app"."counters" t using u where t.id = u.id ' +
      'and upper_inf(t.__block_range) and lower(t.__block_range) = u.h) update "app"."counters" t set __block_range = int8range(lower(t.__block_range), u.h) ' +
      'from u where t.id = u.id and upper_inf(t.__block_range) and lower(t.__block_range) < u.h',
    'a version born at the height written is deleted, not left as an empty range',
  );
  t.equal(
    table.upsertSql,
    'insert into "app"."counters" (id, "value", "label", "total") select u.id, u.c0::integer, u.c1::text, u.c2::numeric ' +
      'from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as u(id, c0, c1, c2) on conflict (id) do update set ' +
      '"value" = excluded."value", "label" = excluded."label", "total" = excluded."total", id = excluded.id, "updated_at" = now()',
  );
  t.equal(table.deleteSql, 'delete from "app"."counters" where id = any($1::text[])');
});

t.test('--multi-chain: the chain is a literal in every write; --timestamp-field=false: no update time', async (t) => {
  const table = entityTableSql(counter, model, 'app', false, "it's");
  t.equal(table.copySql, 'copy "app"."counters" (id, "value", "label", "total", __block_range, __chain) from stdin');
  t.equal(table.chainField, "\tit's");
  t.equal(
    table.upsertSql,
    `insert into "app"."counters" (id, "value", "label", "total", __chain) select u.id, u.c0::integer, u.c1::text, u.c2::numeric, 'it''s' ` +
      'from unnest($1::text[], $2::text[], $3::text[], $4::text[]) as u(id, c0, c1, c2) on conflict (id) do update set ' +
      '"value" = excluded."value", "label" = excluded."label", "total" = excluded."total", id = excluded.id',
  );
});

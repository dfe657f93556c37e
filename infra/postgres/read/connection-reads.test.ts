import t from 'tap';
import { countSelect, PAGE_PARENT_ID, pageColumns, pageSelect, pagesPerParent, rowsWhere } from './connection-reads.ts';

const parts = {
  select: 't."id", t."v" as __c0',
  from: '"app"."transfers"',
  where: 'upper_inf(t.__block_range)',
  order: 't."v" asc, t.id asc',
  limit: 11,
  offset: 0,
};

t.test('a page: conditions, cursor, order, one row more than asked, offset', async (t) => {
  t.equal(
    pageSelect({ ...parts, cursor: [] }),
    `select t."id", t."v" as __c0 from "app"."transfers" t where upper_inf(t.__block_range) order by t."v" asc, t.id asc limit 11`,
  );
  t.equal(
    pageSelect({ ...parts, where: 'true', cursor: ['(t."v", t.id) > ($1, $2)'], offset: 20 }),
    `select t."id", t."v" as __c0 from "app"."transfers" t where (t."v", t.id) > ($1, $2) order by t."v" asc, t.id asc limit 11 offset 20`,
  );
  t.equal(
    pageSelect({ ...parts, where: 'true', cursor: [] }),
    `select t."id", t."v" as __c0 from "app"."transfers" t where true order by t."v" asc, t.id asc limit 11`,
  );
});

t.test('a distinct page: DISTINCT ON first, the cursor after it', async (t) => {
  t.equal(
    pageSelect({ ...parts, cursor: ['c'], distinctOn: { on: 't."to_id"', order: 't.id asc' } }),
    `select t."id", t."v" as __c0 from (select distinct on (t."to_id") t.* from "app"."transfers" t where upper_inf(t.__block_range) order by t."to_id", t.id asc) t where c order by t."v" asc, t.id asc limit 11`,
  );
  t.equal(
    pageSelect({ ...parts, cursor: [], distinctOn: { on: 't."to_id"', order: 't.id asc' } }),
    `select t."id", t."v" as __c0 from (select distinct on (t."to_id") t.* from "app"."transfers" t where upper_inf(t.__block_range) order by t."to_id", t.id asc) t order by t."v" asc, t.id asc limit 11`,
  );
});

t.test('pages of many parents in one statement', async (t) => {
  t.equal(
    pagesPerParent('$1::text[]::text[]', 'select 1'),
    'select p.__parent, x.* from unnest($1::text[]::text[]) as p(__parent) cross join lateral (select 1) x',
  );
});

t.test('totalCount: of all rows, per parent, of distinct rows', async (t) => {
  const c = { from: '"app"."transfers"', where: 'w' };
  t.equal(countSelect(c), 'select count(*) as n from "app"."transfers" t where w');
  t.equal(
    countSelect({ ...c, parentColumn: 't."from_id"' }),
    'select t."from_id" as __parent, count(*) as n from "app"."transfers" t where w group by t."from_id"',
  );
  t.equal(countSelect({ ...c, distinctOn: 't."to_id"' }), 'select count(*) as n from (select distinct on (t."to_id") 1 from "app"."transfers" t where w) d');
  t.equal(
    countSelect({ ...c, parentColumn: 't."from_id"', distinctOn: 't."to_id"' }),
    'select __parent, count(*) as n from (select distinct on (t."from_id", t."to_id") t."from_id" as __parent from "app"."transfers" t where w) d group by __parent',
  );
  t.equal(rowsWhere('"app"."transfers"', 'w'), '"app"."transfers" t where w');
});

t.test("a page's columns: the row's, then its order keys as text for cursors", async (t) => {
  const columns = [
    { column: 'id', kind: 'string', list: false },
    { column: 'value', kind: 'bigfloat', list: false },
  ] as const;
  const keys = [
    { column: { column: 'value', sqlType: 'numeric', nullable: false }, desc: true, nullsFirst: true },
    { column: { column: 'id', sqlType: 'text', nullable: false }, desc: true, nullsFirst: true },
  ];
  t.equal(pageColumns('t', { columns }, keys), 't."id", t."value"::text as "value", t."value"::text as __k0, t."id"::text as __k1');
  t.match(
    pagesPerParent('$1::text[]::text[]', `select 1 where ${PAGE_PARENT_ID} = 'a'`),
    /as p\(__parent\) cross join lateral \(select 1 where p\.__parent = 'a'\) x$/,
  );
});

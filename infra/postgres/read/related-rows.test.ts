import t from 'tap';
import { existsRow, noRelatedRow, relatedRowCount, relatedRowExists, relatedRowsValue, relatedValue, relationJoin } from './related-rows.ts';
import { SqlParams } from './sql-params.ts';

t.test('subqueries over related rows', async (t) => {
  t.equal(existsRow('"app"."accounts"', 't1', 't1.id = t."from_id"'), 'exists (select 1 from "app"."accounts" t1 where t1.id = t."from_id")');
  t.equal(relatedValue('count(*)', '"app"."transfers"', 'r."from_id" = t.id'), '(select count(*) from "app"."transfers" r where r."from_id" = t.id)');
});

const accounts = { table: '"app"."accounts"', historical: true };
const transfers = { table: '"app"."transfers"', historical: false };
const from = { direction: 'forward', column: 'from_id' } as const;
const sent = { direction: 'backward', column: 'from_id' } as const;

t.test('a relation joins on the id and the foreign key, whichever side holds it', async (t) => {
  t.equal(relationJoin(from, 't1', 't'), 't1.id = t."from_id"');
  t.equal(relationJoin(sent, 't1', 't'), 't1."from_id" = t.id');
});

t.test("a filter's related rows: at the query's height, narrowed, or none", async (t) => {
  const params = new SqlParams();
  const scope = { height: 7n, params };
  t.equal(
    relatedRowExists('t', accounts, from, scope),
    'exists (select 1 from "app"."accounts" t1 where t1.id = t."from_id" and (lower(t1.__block_range) <= ($1::int8) and t1.__block_range @> ($1::int8)))',
  );
  t.equal(
    relatedRowExists('t', transfers, sent, scope, (a) => `${a}."v" > ${params.add(3, 'numeric')}`),
    'exists (select 1 from "app"."transfers" t2 where t2."from_id" = t.id and true and (t2."v" > $3::numeric))',
  );
  t.equal(
    noRelatedRow('t', accounts, from, { height: undefined, params }),
    'not exists (select 1 from "app"."accounts" t3 where t3.id = t."from_id" and upper_inf(t3.__block_range))',
  );
  // the height is a parameter even of a table without history, which does not refer to it (as it always was)
  t.same(params.values, ['7', '7', '3']);
});

t.test("an order's value of related rows, the height a literal", async (t) => {
  t.equal(
    relatedRowsValue((r) => `${r}."balance"`, 't', accounts, from, 12n),
    '(select r."balance" from "app"."accounts" r where r.id = t."from_id" and (lower(r.__block_range) <= (12::int8) and r.__block_range @> (12::int8)))',
  );
  t.equal(
    relatedRowCount('t', { ...transfers, historical: true }, sent, undefined),
    '(select count(*) from "app"."transfers" r where r."from_id" = t.id and upper_inf(r.__block_range))',
  );
});

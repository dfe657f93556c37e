import t from 'tap';
import { existsRow, relatedValue } from './related-rows.ts';

t.test('subqueries over related rows', async (t) => {
  t.equal(existsRow('"app"."accounts"', 't1', 't1.id = t."from_id"'), 'exists (select 1 from "app"."accounts" t1 where t1.id = t."from_id")');
  t.equal(relatedValue('count(*)', '"app"."transfers"', 'r."from_id" = t.id'), '(select count(*) from "app"."transfers" r where r."from_id" = t.id)');
});

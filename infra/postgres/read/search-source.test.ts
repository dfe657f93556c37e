import t from 'tap';
import { searchSource } from './search-source.ts';
import { SqlParams } from './sql-params.ts';

t.test("a search's rows: the matching versions and their rank", async (t) => {
  const params = new SqlParams();
  const ft = { fields: ['title'], columns: ['title'], language: 'english' };
  t.equal(
    searchSource('"app"."posts"', ft, 'fox & dog', params),
    `(select s.*, ts_rank(s."_tsv", to_tsquery('english'::regconfig, $1::text)) as __rank from "app"."posts" s where s."_tsv" @@ to_tsquery('english'::regconfig, $1::text))`,
  );
  t.same(params.values, ['fox & dog']);
});

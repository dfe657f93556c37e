import t from 'tap';
import { rowsByForeignKey, rowsById } from './rows-by-key.ts';

const columns = [
  { column: 'id', kind: 'string', list: false },
  { column: 'value', kind: 'bigfloat', list: false },
] as const;
const historical = { table: '"app"."transfers"', historical: true, columns };
const flat = { ...historical, historical: false };

t.test('rows by id: the live versions, or one step back along (id, lower) per id at a height', async (t) => {
  t.same(rowsById(historical, ['a', 'b'], undefined), {
    text: `select t."id", t."value"::text as "value" from "app"."transfers" t where t.id = any($1::text[]::text[]) and upper_inf(t.__block_range)`,
    values: ['{"a","b"}'],
  });
  t.same(rowsById(historical, ['a'], 9n), {
    text:
      `select t."id", t."value"::text as "value" from unnest($1::text[]::text[]) as u(id) cross join lateral ` +
      `(select * from "app"."transfers" v where v.id = u.id and lower(v.__block_range) <= $2::int8 order by lower(v.__block_range) desc limit 1) t ` +
      `where upper_inf(t.__block_range) or upper(t.__block_range) > $2::int8`,
    values: ['{"a"}', '9'],
  });
  t.same(rowsById(flat, ['a'], 9n), {
    text: `select t."id", t."value"::text as "value" from "app"."transfers" t where t.id = any($1::text[]::text[]) and true`,
    // the height is added as a parameter before the table is found to have no history (as it always was)
    values: ['{"a"}', '9'],
  });
});

t.test('rows by a foreign key, each with its parent', async (t) => {
  t.same(rowsByForeignKey(historical, 'from_id', ['a'], 4n), {
    text: `select t."from_id" as __parent, t."id", t."value"::text as "value" from "app"."transfers" t where t."from_id" = any($1::text[]::text[]) and (lower(t.__block_range) <= ($2::int8) and t.__block_range @> ($2::int8)) order by t.id`,
    values: ['{"a"}', '4'],
  });
});

import t from 'tap';
import { changesCountSelect, changesJoin, changesPageSelect } from './changes-reads.ts';
import { SqlParams } from './sql-params.ts';

const table = { table: '"app"."transfers"' };

t.test('the versions begun and ended between two heights, fully joined', async (t) => {
  const params = new SqlParams();
  const join = changesJoin(table, { from: 5, to: 9, matches: () => 'true' }, params);
  t.equal(
    join,
    '(select x.*, lower(x.__block_range) as __h from "app"."transfers" x where lower(x.__block_range) >= $1::int8 and lower(x.__block_range) < $2::int8) a full join ' +
      '(select x.*, upper(x.__block_range) as __h from "app"."transfers" x where not upper_inf(x.__block_range) and upper(x.__block_range) >= $1::int8 and upper(x.__block_range) < $2::int8) b ' +
      'on a.id = b.id and a.__h = b.__h',
  );
  t.same(params.values, ['5', '9']);
  t.equal(changesCountSelect(join), `select count(*) as n from ${join}`);
});

t.test('a page after a cursor, filtered on the version before or after', async (t) => {
  const params = new SqlParams();
  const seen: string[] = [];
  const matches = (alias: string, height: string) => (seen.push(`${alias}@${height}`), `${alias}.v > 1`);
  const join = changesJoin(table, { from: 5, to: 9, page: { after: ['6', 'x'], limit: 2 }, matches }, params);
  t.same(seen, ['x@lower(x.__block_range)', 't1@upper(t1.__block_range) - 1', 'x@upper(x.__block_range) - 1', 't2@lower(t2.__block_range)']);
  t.match(
    join,
    '(select x.*, lower(x.__block_range) as __h from "app"."transfers" x left join "app"."transfers" t1 on not upper_inf(t1.__block_range) and upper(t1.__block_range) = lower(x.__block_range) and t1.id = x.id ' +
      'where lower(x.__block_range) >= $1::int8 and lower(x.__block_range) < $2::int8 and (lower(x.__block_range), x.id) > ($3::int8, $4::text) ' +
      'and ((x.v > 1) or (t1.id is not null and (t1.v > 1))) order by lower(x.__block_range), x.id limit 3) a',
  );
  t.same(params.values, ['5', '9', '6', 'x', '6', 'x']);
  const columns = [{ column: 'id', kind: 'string', list: false }] as const;
  t.equal(
    changesPageSelect({ columns }, 'J', 2),
    'select coalesce(a.__h, b.__h)::text as __height, coalesce(a.id, b.id) as __id, a.id is not null as __has_after, b.id is not null as __has_before, ' +
      'a."id" as "a.id", b."id" as "b.id" from J order by coalesce(a.__h, b.__h), coalesce(a.id, b.id) limit 3',
  );
});

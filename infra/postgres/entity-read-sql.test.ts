import t from 'tap';
import { IdxError } from '../../domain/errors.ts';
import { decodeRow, emptyTablesSql, getByIdSql, queryByFieldsSql, toPoiRow } from './entity-read-sql.ts';
import { entityTableSql } from './entity-table-sql.ts';
import { counterModel } from '../../test/support/test-models.ts';

const model = counterModel();
const table = entityTableSql(model.entities[0]!, model, 'app', true, undefined);
const select = 'select id, "value", "label", "total" from "app"."counters"';

t.test('by id: the live version, or the one alive at a height; plain tables have one', async (t) => {
  t.same(getByIdSql(table, true, 'a', undefined), { sql: `${select} where id = $1 and upper_inf(__block_range) limit 1`, params: ['a'] });
  t.same(getByIdSql(table, true, 'a', 5), {
    sql: `${select} where id = $1 and (lower(__block_range) <= ($2::int8) and __block_range @> ($2::int8)) limit 1`,
    params: ['a', 5],
  });
  t.same(getByIdSql(table, false, 'a', 5), { sql: `${select} where id = $1 and true limit 1`, params: ['a'] });
});

t.test('by fields: values as text parameters cast to the column, null tests, lists, order and paging', async (t) => {
  const read = queryByFieldsSql(
    table,
    true,
    [
      ['value', '=', 3],
      ['label', '!=', null],
      ['total', '!in', [1n, null]],
      ['id', 'in', ['a']],
    ],
    { orderBy: 'value', orderDirection: 'desc' as never, limit: 10, offset: 20 },
    7,
  );
  t.equal(
    read.sql,
    `${select} where "value" = $1::text::integer and "label" is not null and not "total" = any($2::text[]::numeric[]) and id = any($3::text[]::text[]) ` +
      'and (lower(__block_range) <= ($4::int8) and __block_range @> ($4::int8)) order by "value" DESC, id limit 10 offset 20',
  );
  t.same(read.params, ['3', '{"1",NULL}', '{"a"}', 7]);
  t.equal(queryByFieldsSql(table, false, [], {}, undefined).sql, `${select} where true order by id ASC`);
});

t.test('a read the store cannot make is an IdxError with its code', async (t) => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return err instanceof IdxError ? err.code : 'not an IdxError';
    }
    return 'no error';
  };
  t.equal(
    code(() => queryByFieldsSql(table, true, [['nope', '=', 1]], {}, undefined)),
    'STORE_UNKNOWN_FIELD',
  );
  t.equal(
    code(() => queryByFieldsSql(table, true, [['id', '=', 1]], {}, undefined)),
    'STORE_INVALID_VALUE',
  );
  t.equal(
    code(() => queryByFieldsSql(table, true, [['value', 'in', 1]], {}, undefined)),
    'STORE_INVALID_VALUE',
  );
  t.equal(
    code(() => queryByFieldsSql(table, true, [], { orderDirection: 'up' as never }, undefined)),
    'STORE_INVALID_VALUE',
  );
  t.equal(
    code(() => queryByFieldsSql(table, true, [], { limit: -1 }, undefined)),
    'STORE_INVALID_VALUE',
  );
  t.equal(
    code(() => getByIdSql(table, true, 'a', 1.5)),
    'STORE_INVALID_VALUE',
  );
});

t.test('rows decode to entity data; _poi rows to PoiRows', async (t) => {
  t.same(decodeRow(table, { id: 'a', value: 1, label: null, total: '12' }), { id: 'a', value: 1, label: null, total: 12n });
  t.same(toPoiRow({ height: '9', chain_block_hash: new Uint8Array([1]), hash: null, parent_hash: undefined, operation_hash_root: null }), {
    id: 9,
    chainBlockHash: new Uint8Array([1]),
    hash: null,
    parentHash: null,
    operationHashRoot: null,
  });
});

t.test('empty tables: one statement naming each type whose table has no row', async (t) => {
  t.equal(emptyTablesSql([table]), `select 'Counter' as entity where not exists (select 1 from "app"."counters")`);
  t.equal(emptyTablesSql([table, table])?.split(' union all ').length, 2);
  t.equal(emptyTablesSql([]), undefined);
});

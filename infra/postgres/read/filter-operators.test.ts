import t from 'tap';
import { operatorsFor, utcTimestampText, type FilterColumn } from './filter-operators.ts';
import { SqlParams } from './sql-params.ts';

const sqlOf = (c: FilterColumn, op: string, value: unknown) => {
  const params = new SqlParams();
  const found = operatorsFor(c).find((o) => o.name === op)!;
  return { text: found.sql('t."c"', value, c, params), values: params.values };
};
const text: FilterColumn = { column: 'c', kind: 'string', list: false, sqlType: 'text' };
const bytes: FilterColumn = { column: 'c', kind: 'bytes', list: false, sqlType: 'bytea' };
const numbers: FilterColumn = { column: 'c', kind: 'bigfloat', list: true, sqlType: 'numeric' };

t.test('comparisons, lists and patterns as conditions with parameters', async (t) => {
  t.same(sqlOf(text, 'equalTo', 'a'), { text: 't."c" = $1::text', values: ['a'] });
  t.same(sqlOf(text, 'in', ['a', 'b']), { text: 't."c" = any($1::text[]::text[])', values: ['{"a","b"}'] });
  t.same(sqlOf(text, 'isNull', false), { text: 't."c" is not null', values: [] });
  t.same(sqlOf(text, 'includesInsensitive', '50%'), { text: 't."c" ilike $1::text', values: ['%50\\%%'] });
  t.same(sqlOf(text, 'equalToInsensitive', 'A'), { text: 'lower(t."c") = lower($1::text)', values: ['A'] });
  t.same(sqlOf(numbers, 'anyGreaterThan', 5), { text: '$1::numeric < any(t."c")', values: ['5'] });
});

t.test('bytes compare as bytea and match patterns as 0x-hex', async (t) => {
  t.same(sqlOf(bytes, 'equalTo', '0xAB'), { text: 't."c" = $1::text::bytea', values: ['\\xAB'] });
  t.same(sqlOf(bytes, 'startsWith', '0xab'), { text: `('0x' || encode(t."c", 'hex')) like $1::text`, values: ['0xab%'] });
  t.throws(() => sqlOf(bytes, 'equalTo', '0xabc'));
});

t.test('a time with a zone becomes UTC; one without is UTC already', async (t) => {
  t.equal(utcTimestampText('2024-01-01T02:00:00+02:00'), '2024-01-01T00:00:00.000Z');
  t.equal(utcTimestampText('2024-01-01 02:00:00'), '2024-01-01 02:00:00');
});

import t from 'tap';
import { hexOf, selectExpression, selectList } from './select-list.ts';

const columns = [
  { column: 'id', kind: 'string', list: false },
  { column: 'value', kind: 'bigfloat', list: false },
  { column: 'data', kind: 'bytes', list: false },
  { column: 'kinds', kind: 'enum', list: true },
  { column: 'at', kind: 'datetime', list: false },
] as const;

t.test('columns as GraphQL shows them: numeric and enum lists as text, bytes as 0x-hex', async (t) => {
  t.equal(
    selectList('t', { columns }),
    `t."id", t."value"::text as "value", ('0x' || encode(t."data", 'hex')) as "data", t."kinds"::text[] as "kinds", t."at"`,
  );
  t.equal(selectList('a', { columns: columns.slice(0, 2) }, 'a.'), `a."id" as "a.id", a."value"::text as "a.value"`, 'prefixed names');
  t.equal(selectExpression('x', columns[4]), 'x."at"');
  t.equal(hexOf('r."h"'), `('0x' || encode(r."h", 'hex'))`);
});

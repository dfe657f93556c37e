import t from 'tap';
import { afterCursorSql, cursorColumnsSql, orderBySql, type SqlOrderKey } from './order-sql.ts';
import { SqlParams } from './sql-params.ts';

const id = { column: 'id', sqlType: 'text', nullable: false };
const value = { column: 'value', sqlType: 'numeric', nullable: false };
const memo = { column: 'memo', sqlType: 'text', nullable: true };
const key = (column: SqlOrderKey['column'], desc = false, nullsFirst = desc): SqlOrderKey => ({ column, desc, nullsFirst });

t.test('ORDER BY and the cursor columns of the keys', async (t) => {
  const keys = [key(value, true), key(memo, false, true), key(id, true), { ...key(id), expr: (a: string) => `(select 1 from r where r.id = ${a}.id)` }];
  t.equal(orderBySql('t', keys), 't."value" desc, t."memo" nulls first, t."id" desc, (select 1 from r where r.id = t.id)');
  t.equal(cursorColumnsSql('t', keys.slice(0, 2)), 't."value"::text as __k0, t."memo"::text as __k1');
});

t.test('after a cursor: one row comparison when it can, else the expansion with NULLs placed', async (t) => {
  const uniform = new SqlParams();
  t.equal(afterCursorSql('t', [key(value), key(id)], ['5', 'a'], uniform), '(t."value", t."id") > ($1::numeric, $2::text)');
  t.same(uniform.values, ['5', 'a']);
  t.equal(afterCursorSql('t', [key(id, true)], ['a'], new SqlParams()), 't."id" < $1::text');
  const mixed = new SqlParams();
  t.equal(
    afterCursorSql('t', [key(memo), key(id)], ['x', 'a'], mixed),
    '((t."memo" > $1::text or t."memo" is null)) or (t."memo" = $3::text and t."id" > $2::text)',
  );
  t.same(mixed.values, ['x', 'a', 'x']);
  t.equal(afterCursorSql('t', [key(memo), key(id)], [null, 'a'], new SqlParams()), '(t."memo" is null and t."id" > $1::text)');
});

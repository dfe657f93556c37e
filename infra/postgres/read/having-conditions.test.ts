import t from 'tap';
import { havingAll, havingComparison, havingList, isHavingOperator } from './having-conditions.ts';
import { SqlParams } from './sql-params.ts';

const value = { column: 'value', kind: 'bigfloat', list: false } as const;
const at = { column: 'at', kind: 'datetime', list: false } as const;

t.test("a group's aggregate compared with a parameter: a number, or a time made UTC", async (t) => {
  const params = new SqlParams();
  t.equal(havingComparison('sum', value, 'greaterThan', '10', params), 'coalesce(sum(t."value"), 0)::numeric > $1::numeric');
  t.equal(havingComparison('distinctCount', value, 'notEqualTo', '2', params), 'count(distinct t."value") <> $2::numeric');
  t.equal(havingComparison('max', at, 'lessThanOrEqualTo', '2024-01-01T02:00:00+02:00', params), 'max(t."at") <= $3::timestamp');
  t.same(params.values, ['10', '2', '2024-01-01T00:00:00.000Z']);
});

t.test('the operators, and how conditions combine', async (t) => {
  t.ok(isHavingOperator('equalTo'));
  t.notOk(isHavingOperator('like'));
  t.notOk(isHavingOperator('toString'), 'not a property every object has');
  t.equal(havingList('AND', ['a', 'true']), '((a) and (true))');
  t.equal(havingList('OR', ['a', 'b']), '((a) or (b))');
  t.equal(havingList('OR', []), undefined);
  t.equal(havingAll([]), 'true');
  t.equal(havingAll(['a', '((b) or (c))']), 'a and ((b) or (c))');
});

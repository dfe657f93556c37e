import t from 'tap';
import { allOf, filterList, negated } from './filter-logic.ts';

t.test('conditions of one filter: one alone, several each in parentheses, none is true', async (t) => {
  t.equal(allOf([]), 'true');
  t.equal(allOf(['t."v" > $1::int8']), 't."v" > $1::int8');
  t.equal(allOf(['t."v" > $1::int8', 't."w" is null']), '(t."v" > $1::int8) and (t."w" is null)');
});

t.test('and, or and not', async (t) => {
  t.equal(filterList('and', []), 'true');
  t.equal(filterList('or', []), 'true');
  t.equal(filterList('and', ['a', 'b']), '(a) and (b)');
  t.equal(filterList('or', ['a', 'b or c']), '(a) or (b or c)');
  t.equal(negated('a and b'), 'not (a and b)');
});

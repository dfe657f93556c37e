import t from 'tap';
import { columnRef } from './column-ref.ts';

t.test('a column of a row, its name quoted', async (t) => {
  t.equal(columnRef('t', 'from_id'), 't."from_id"');
  t.equal(columnRef('t1', 'Odd"Name'), 't1."Odd""Name"');
});

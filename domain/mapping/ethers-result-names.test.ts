import t from 'tap';
import { eventArgNames, tupleNames } from './ethers-result-names.ts';

t.test("an event's arguments: first of a name wins, keys of arrays are left out", async (t) => {
  t.same(eventArgNames(['from', 'to', 'value']), ['from', 'to', 'value']);
  t.same(eventArgNames(['a', null, '', 'a']), ['a', null, null, null]);
  t.same(eventArgNames(['length', 'map', 'constructor', 'x']), [null, null, null, 'x']);
});

t.test('tuples and call data: only names used once, length as _length', async (t) => {
  t.same(tupleNames(['a', 'b', 'a']), [null, 'b', null]);
  t.same(tupleNames(['length', 'x']), ['_length', 'x']);
  t.same(tupleNames(['_length', 'length']), ['_length', null]);
  t.same(tupleNames(['constructor', 'toString', 'push', 'ok']), [null, null, null, 'ok']);
  t.same(tupleNames([null, undefined, '']), [null, null, null]);
});

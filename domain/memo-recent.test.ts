import t from 'tap';
import { memoRecent } from './memo-recent.ts';

t.test('computes a key once while it is asked often, and at most max keys are remembered', async (t) => {
  const computed: number[] = [];
  const square = memoRecent(10, (n: number) => {
    computed.push(n);
    return n * n;
  });
  for (let round = 0; round < 100; round++) t.equal(square(7), 49);
  t.same(computed, [7], 'a hot key is computed once');
  for (let n = 100; n < 200; n++) square(n);
  t.equal(square(7), 49);
  t.same(computed.filter((n) => n === 7).length, 2, 'a key not asked for a while is computed again');
  computed.length = 0;
  for (let n = 300; n < 320; n++) square(n);
  for (let n = 300; n < 320; n++) square(n);
  t.ok(computed.length > 20, 'twenty keys do not fit in ten');
  computed.length = 0;
  for (let n = 400; n < 404; n++) square(n);
  for (let n = 400; n < 404; n++) square(n);
  t.same(computed, [400, 401, 402, 403], 'four recent keys fit');
});

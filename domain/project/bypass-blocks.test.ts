import t from 'tap';
import { bypassedHeights, parseBypassEntry } from './bypass-blocks.ts';

t.test('entries: heights and "from-to" ranges, both ends included', async (t) => {
  t.same(parseBypassEntry(7), { from: 7, to: 7 });
  t.same(parseBypassEntry('10-12'), { from: 10, to: 12 });
  t.same(parseBypassEntry(' 10 - 12 '), { from: 10, to: 12 });
  for (const bad of [-1, 1.5, '15', '12-10', 'a-b', '1-2-3', null, {}]) t.equal(parseBypassEntry(bad), undefined, `refused: ${JSON.stringify(bad)}`);
});

t.test('the predicate over a list, and none without one', async (t) => {
  const bypassed = bypassedHeights([3, '10-12'])!;
  t.same([2, 3, 4, 9, 10, 11, 12, 13].filter(bypassed), [3, 10, 11, 12]);
  t.equal(bypassedHeights(undefined), undefined);
  t.equal(bypassedHeights([]), undefined);
});

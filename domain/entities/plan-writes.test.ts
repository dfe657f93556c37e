import t from 'tap';
import type { StoreOperation } from './entity-store.ts';
import { createIdFilter } from './id-filter.ts';
import { closingStoredOnly, planHistoricalWrites, planPlainWrites } from './plan-writes.ts';

const set = (id: string, height: number, v: number, entity = 'E'): StoreOperation => ({ entity, id, height, op: 'set', data: { id, v } });
const remove = (id: string, height: number, entity = 'E'): StoreOperation => ({ entity, id, height, op: 'remove' });

t.test('historical: the last write of an id in a block wins; each write ends the previous version', async (t) => {
  const plans = planHistoricalWrites([
    set('a', 10, 1),
    set('b', 10, 1),
    set('a', 12, 2),
    set('a', 12, 3),
    remove('b', 13),
    set('a', 15, 4),
    remove('a', 17),
    set('x', 11, 1, 'F'),
  ]);
  t.same([...plans.keys()], ['E', 'F']);
  const e = plans.get('E')!;
  t.same(e.closeIds, ['a', 'b'], 'each id closes its stored live version once');
  t.same(e.closeHeights, [10, 10], '... at its first write in the batch');
  t.same(
    e.inserts.map((v) => [v.id, v.data.v, v.lower, v.upper]),
    [
      ['a', 1, 10, 12],
      ['a', 3, 12, 15],
      ['a', 4, 15, 17],
      ['b', 1, 10, 13],
    ],
  );
  t.same(plans.get('F')!.inserts, [{ id: 'x', data: { id: 'x', v: 1 }, lower: 11, upper: null }]);
});

t.test('historical: writes out of block order are put in order', async (t) => {
  const e = planHistoricalWrites([set('a', 12, 2), set('a', 10, 1)]).get('E')!;
  t.same(e.closeHeights, [10]);
  t.same(
    e.inserts.map((v) => [v.data.v, v.lower, v.upper]),
    [
      [1, 10, 12],
      [2, 12, null],
    ],
  );
});

t.test('plain: only the final state of each id', async (t) => {
  const e = planPlainWrites([set('a', 1, 1), set('b', 1, 1), remove('a', 2), set('b', 3, 5), remove('c', 3), set('c', 3, 7)]).get('E')!;
  t.same(e.upserts, [
    { id: 'b', data: { id: 'b', v: 5 } },
    { id: 'c', data: { id: 'c', v: 7 } },
  ]);
  t.same(e.removes, ['a']);
});

t.test('a set without data is refused', async (t) => {
  t.throws(() => planHistoricalWrites([{ entity: 'E', id: 'a', height: 1, op: 'set' }]), {
    code: 'STORE_INVALID_OPERATION',
    message: 'store set of E "a" at block 1 has no data',
  });
});

t.test('closingStoredOnly: ids the filter proves never stored are not closed; every id of the plan is then held', async (t) => {
  const stored = createIdFilter();
  stored.add('a');
  const plan = planHistoricalWrites([set('a', 10, 1), set('b', 10, 1), remove('c', 11), set('b', 12, 2), set('d', 13, 1), remove('d', 14)]).get('E')!;
  const closing = closingStoredOnly(plan, stored);
  t.same(closing.closeIds, ['a'], 'b, c and d were never stored: nothing of theirs to close');
  t.same(closing.closeHeights, [10]);
  t.equal(closing.inserts, plan.inserts, 'the versions are the plan’s');
  t.same(plan.closeIds, ['a', 'b', 'c', 'd'], 'the plan itself is left as it was');
  t.same(
    ['a', 'b', 'c', 'd', 'e'].map((id) => stored.mightHold(id)),
    [true, true, true, true, false],
    'every id of the plan is held now, c (only removed) too: holding too much only keeps a close',
  );
  const next = closingStoredOnly(planHistoricalWrites([set('b', 20, 3), set('c', 20, 1), set('e', 20, 2)]).get('E')!, stored);
  t.same(next.closeIds, ['b', 'c'], 'the next flush closes what the last one held; e is new');
});

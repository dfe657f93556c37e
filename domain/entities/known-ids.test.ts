import t from 'tap';
import { createKnownIds } from './known-ids.ts';

t.test('an id never written to a fresh type is absent; a written one, or any id of another type, may exist', async (t) => {
  const known = createKnownIds(['Account'], 10);
  t.equal(known.absent('Account', 'a'), true);
  known.add('Account', 'a');
  t.equal(known.absent('Account', 'a'), false);
  t.equal(known.absent('Account', 'b'), true);
  known.add('Transfer', 'x');
  t.equal(known.absent('Transfer', 'x'), false, 'a type that did not start empty is never known');
  t.equal(known.absent('Transfer', 'y'), false);
});

t.test('past the budget the largest set is dropped for good, the others kept', async (t) => {
  const known = createKnownIds(['Account', 'Transfer'], 5);
  known.add('Account', 'a');
  for (const id of ['t1', 't2', 't3', 't4']) known.add('Transfer', id);
  known.add('Transfer', 't4'); // the same id again takes no room
  t.equal(known.absent('Transfer', 'zz'), true, 'five ids fit the budget');
  known.add('Transfer', 't5');
  t.equal(known.absent('Transfer', 'zz'), false, 'the largest set is gone: its type is unknown');
  known.add('Transfer', 't6');
  t.equal(known.absent('Transfer', 'zz'), false, 'and stays unknown');
  t.equal(known.absent('Account', 'b'), true, 'the smaller set is kept');
  for (const id of ['b', 'c', 'd', 'e']) known.add('Account', id);
  t.equal(known.absent('Account', 'z'), true, 'the budget freed by the dropped set is there again');
  known.add('Account', 'f');
  t.equal(known.absent('Account', 'z'), false);
});

t.test('forgetAll: every type unknown from then on', async (t) => {
  const known = createKnownIds(['Account'], 10);
  t.equal(known.absent('Account', 'a'), true);
  known.forgetAll();
  t.equal(known.absent('Account', 'a'), false);
  known.add('Account', 'b');
  t.equal(known.absent('Account', 'c'), false);
});

t.test('a type never asked about is dropped at the cap; one asked about, or read inside the sandbox, is kept', async (t) => {
  const known = createKnownIds(['Account', 'Transfer', 'Pool'], 100, 3);
  t.equal(known.absent('Account', 'zz'), true, 'asking about Account');
  known.read('Pool');
  for (const entity of ['Account', 'Transfer', 'Pool']) for (const id of ['a', 'b', 'c', 'd']) known.add(entity, id);
  t.equal(known.absent('Transfer', 'zz'), false, 'the fourth id dropped the set of the type never asked about');
  t.equal(known.absent('Account', 'zz'), true, 'an asked type passes the cap');
  t.equal(known.absent('Pool', 'zz'), true, 'a type read inside passes the cap');
  t.equal(known.absent('Account', 'd'), false);
});

t.test('a dropped unasked set gives its room back to the budget', async (t) => {
  const known = createKnownIds(['Account', 'Transfer'], 6, 3);
  known.absent('Account', 'x');
  for (const id of ['t1', 't2', 't3', 't4']) known.add('Transfer', id); // dropped at 4
  for (const id of ['a', 'b', 'c', 'd', 'e', 'f']) known.add('Account', id);
  t.equal(known.absent('Account', 'z'), true, 'six ids of Account fit: the dropped ids no longer count');
  known.add('Account', 'g');
  t.equal(known.absent('Account', 'z'), false, 'the seventh passes the budget');
});

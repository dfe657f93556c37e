import t from 'tap';
import { createAccessRecorder, readAccessRecord } from './handler-access.ts';

t.test('grows from the stored record; its version moves only on something new', async (t) => {
  const r = createAccessRecorder({ complete: true, handlers: { b: { reads: [], writes: ['X'] } } });
  const v0 = r.version();
  r.add([['b', 'X', 2]]);
  t.equal(r.version(), v0, 'known: no move');
  r.add([
    ['a', 'Y', 1],
    ['a', 'Y', 2],
    ['b', 'A', 1],
  ]);
  t.ok(r.version() > v0);
  t.same(r.record(), { complete: true, handlers: { a: { reads: ['Y'], writes: ['Y'] }, b: { reads: ['A'], writes: ['X'] } } });
});

t.test('a stored record of another shape is none', async (t) => {
  t.same(readAccessRecord({ complete: false, handlers: { a: { reads: ['X'], writes: [] } } }), {
    complete: false,
    handlers: { a: { reads: ['X'], writes: [] } },
  });
  for (const bad of [null, 'x', {}, { complete: true }, { complete: true, handlers: { a: { reads: [1], writes: [] } } }, { complete: 'yes', handlers: {} }]) {
    t.equal(readAccessRecord(bad), undefined, JSON.stringify(bad));
  }
});

import t from 'tap';
import { entityDifferences, sameValue } from './entity-differences.ts';

const transfer = (data: Record<string, unknown>) => ({ entity: 'Transfer', id: 't1', data: { id: 't1', ...data } });

t.test('an entity stored as expected has no differences', async (t) => {
  const when = new Date('2024-01-02T03:04:05.678Z');
  const expected = transfer({ value: 10n, at: when, memo: undefined, raw: new Uint8Array([1, 2]), tags: ['a'], meta: { n: 1 } });
  const actual = { id: 't1', value: 10n, at: new Date(when.getTime()), memo: null, raw: new Uint8Array([1, 2]), tags: ['a'], meta: { n: 1 } };
  t.same(entityDifferences(expected, actual), []);
});

t.test('names each field that differs with both values', async (t) => {
  const diffs = entityDifferences(transfer({ value: 11n, from: '0xa' }), { id: 't1', value: 10n, from: '0xa', to: '0xb' });
  t.same(diffs, [
    { field: 'value', expected: 11n, actual: 10n },
    { field: 'to', expected: null, actual: '0xb' },
  ]);
});

t.test('an expected value the store lacks differs; absent and null are alike', async (t) => {
  t.same(entityDifferences(transfer({ memo: 'x' }), { id: 't1' }), [{ field: 'memo', expected: 'x', actual: null }]);
  t.same(entityDifferences(transfer({ memo: null }), { id: 't1' }), []);
});

t.test('no stored entity is missing', async (t) => {
  t.equal(entityDifferences(transfer({}), undefined), 'missing');
});

t.test('sameValue compares deeply and by type', async (t) => {
  t.ok(sameValue(NaN, NaN));
  t.notOk(sameValue(1n, 1));
  t.notOk(sameValue('1', 1));
  t.notOk(sameValue([1], { 0: 1 }));
  t.notOk(sameValue(new Date(1), 1));
  t.notOk(sameValue(new Uint8Array([1]), [1]));
  t.notOk(sameValue({ a: 1 }, { a: 1, b: 2 }));
  t.ok(sameValue({ a: [{ b: 2n }] }, { a: [{ b: 2n }] }));
});

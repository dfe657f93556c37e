import t from 'tap';
import type { SnapshotRow, TestSnapshot } from './entity-snapshot.ts';
import { snapshotDifferences } from './snapshot-differences.ts';

const row = (entity: string, id: string, blockRange: [number, number | null] | null, fields: SnapshotRow['fields']): SnapshotRow => ({
  entity,
  id,
  blockRange,
  fields,
});
const snap = (rows: SnapshotRow[], from = 1, to = 9): TestSnapshot => ({ from, to, rows });

const base = [
  row('Account', 'a', [1, 5], { balance: { $bigint: '10' } }),
  row('Account', 'a', [5, null], { balance: { $bigint: '7' } }),
  row('Transfer', 't', [5, null], { value: { $bigint: '3' }, memo: null }),
];

t.test('the same rows: no difference, whatever their order', async (t) => {
  t.same(snapshotDifferences(snap(base), snap([...base].reverse())), []);
});

t.test('a changed field names entity, id, version, field and both values', async (t) => {
  const now = [base[0]!, base[1]!, row('Transfer', 't', [5, null], { value: { $bigint: '4' }, memo: null })];
  t.same(snapshotDifferences(snap(base), snap(now)), [
    { kind: 'field', entity: 'Transfer', id: 't', since: 5, field: 'value', snapshot: { $bigint: '3' }, actual: { $bigint: '4' } },
  ]);
});

t.test('a BigInt and the string of its digits differ', async (t) => {
  const now = [base[0]!, base[1]!, row('Transfer', 't', [5, null], { value: '3', memo: null })];
  t.equal(snapshotDifferences(snap(base), snap(now)).length, 1);
});

t.test('versions one side lacks, a moved end, a field only one side has, the range', async (t) => {
  const now = [
    row('Account', 'a', [1, 6], { balance: { $bigint: '10' } }),
    row('Account', 'a', [6, null], { balance: { $bigint: '7' } }),
    row('Transfer', 't', [5, null], { value: { $bigint: '3' } }),
  ];
  t.same(snapshotDifferences(snap(base), snap(now, 1, 10)), [
    { kind: 'range', snapshot: { from: 1, to: 9 }, actual: { from: 1, to: 10 } },
    { kind: 'block-range', entity: 'Account', id: 'a', since: 1, snapshot: [1, 5], actual: [1, 6] },
    { kind: 'only-in-snapshot', entity: 'Account', id: 'a', since: 5, blockRange: [5, null] },
    { kind: 'only-now', entity: 'Account', id: 'a', since: 6, blockRange: [6, null] },
    { kind: 'field', entity: 'Transfer', id: 't', since: 5, field: 'memo', snapshot: null, actual: undefined },
  ]);
});

t.test('without history, versions match by entity and id', async (t) => {
  const was = [row('A', 'x', null, { v: 1 })];
  t.same(snapshotDifferences(snap(was), snap([row('A', 'x', null, { v: 2 })])), [
    { kind: 'field', entity: 'A', id: 'x', since: null, field: 'v', snapshot: 1, actual: 2 },
  ]);
});

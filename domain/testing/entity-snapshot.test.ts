import t from 'tap';
import { readTestSnapshot, snapshotValue, takeSnapshot, type StoredVersion } from './entity-snapshot.ts';

t.test('values are made unambiguous JSON', async (t) => {
  t.equal(snapshotValue('12'), '12');
  t.same(snapshotValue(12n), { $bigint: '12' }, 'a BigInt is not the string of its digits');
  t.equal(snapshotValue(12), 12);
  t.same(snapshotValue(new Date('2024-01-02T03:04:05.678Z')), { $date: '2024-01-02T03:04:05.678Z' });
  t.same(snapshotValue(new Uint8Array([0, 255])), { $bytes: '0x00ff' });
  t.same(snapshotValue(NaN), { $number: 'NaN' });
  t.same(snapshotValue(-Infinity), { $number: '-Infinity' });
  t.same(snapshotValue(-0), { $number: '-0' }, '-0 is not 0');
  t.equal(snapshotValue(undefined), null);
  t.same(snapshotValue([1n, null, 'a']), [{ $bigint: '1' }, null, 'a']);
  t.same(snapshotValue({ $bigint: '1' }), { $object: { $bigint: '1' } }, 'an object that looks tagged is wrapped');
  t.same(Object.keys(snapshotValue({ b: 1, a: { d: 2, c: 3 } }) as object), ['a', 'b'], 'keys in order');
  t.same(Object.keys((snapshotValue({ b: 1, a: { d: 2, c: 3 } }) as { a: object }).a), ['c', 'd'], 'at every depth');
});

t.test('the snapshot: rows by entity, id and first block, fields by name without id', async (t) => {
  const versions: StoredVersion[] = [
    { entity: 'Transfer', id: 't1', data: { id: 't1', value: 5n, from: 'a' }, blockRange: [7, null] },
    { entity: 'Account', id: 'b', data: { id: 'b', balance: 2n }, blockRange: [9, null] },
    { entity: 'Account', id: 'b', data: { id: 'b', balance: 1n }, blockRange: [7, 9] },
    { entity: 'Account', id: 'a', data: { id: 'a', balance: 0n }, blockRange: [10, null] },
  ];
  const s = takeSnapshot(7, 10, versions);
  t.same(
    s.rows.map((r) => [r.entity, r.id, r.blockRange]),
    [
      ['Account', 'a', [10, null]],
      ['Account', 'b', [7, 9]],
      ['Account', 'b', [9, null]],
      ['Transfer', 't1', [7, null]],
    ],
  );
  t.same(s.rows[3]!.fields, { from: 'a', value: { $bigint: '5' } });
  t.same(Object.keys(s.rows[3]!.fields), ['from', 'value']);
  t.same(takeSnapshot(1, 2, [{ entity: 'A', id: 'x', data: { id: 'x' }, blockRange: null }]).rows[0]!.blockRange, null, 'no history: no range');
});

t.test('an entry of the file is checked for the shape idx-node test writes', async (t) => {
  const good = { from: 1, to: 2, rows: [{ entity: 'A', id: 'x', blockRange: [1, null], fields: { v: 1 } }] };
  t.same(readTestSnapshot(good, 'f'), good);
  for (const bad of [null, [], { from: 1, to: 2 }, { ...good, rows: [{ entity: 'A', id: 'x', blockRange: [1], fields: {} }] }, { ...good, from: '1' }])
    t.throws(() => readTestSnapshot(bad, 'x.snap.json: the snapshot of "r"'), {
      code: 'TEST_SNAPSHOT_INVALID',
      message: /x\.snap\.json: the snapshot of "r".*--update-snapshots/,
    });
});

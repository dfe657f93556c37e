import t from 'tap';
import type { SnapshotDifference } from './snapshot-differences.ts';
import { shownSnapshotValue, snapshotDetail, snapshotLine } from './snapshot-report.ts';
import type { SnapshotCheck } from './test-outcome.ts';

const check = (status: SnapshotCheck['status'], differences: SnapshotDifference[] = []): SnapshotCheck => ({
  file: 'src/test/__snapshots__/range.snap.json',
  rows: 12,
  status,
  differences,
});
const field = (i: number): SnapshotDifference => ({
  kind: 'field',
  entity: 'Transfer',
  id: `t${i}`,
  since: 7,
  field: 'value',
  snapshot: { $bigint: '100' },
  actual: { $bigint: '101' },
});

t.test('a line per snapshot check', async (t) => {
  t.equal(snapshotLine(check('matched')), 'Snapshot check PASSED (12 rows, src/test/__snapshots__/range.snap.json)');
  t.equal(snapshotLine(check('written')), 'Snapshot written: 12 rows to src/test/__snapshots__/range.snap.json (there was none for this test)');
  t.equal(snapshotLine(check('updated')), 'Snapshot updated: 12 rows in src/test/__snapshots__/range.snap.json (--update-snapshots)');
  t.equal(snapshotLine(check('differs', [field(1)])), 'Snapshot check FAILED (1 difference with src/test/__snapshots__/range.snap.json)');
});

t.test('values shown as they read: BigInts with n, dates and bytes bare, strings quoted', async (t) => {
  t.equal(shownSnapshotValue({ $bigint: '5' }), '5n');
  t.equal(shownSnapshotValue('5'), '"5"');
  t.equal(shownSnapshotValue({ $date: '2024-01-02T03:04:05.678Z' }), '2024-01-02T03:04:05.678Z');
  t.equal(shownSnapshotValue(null), 'null');
  t.equal(shownSnapshotValue(undefined), '(no such field)');
  t.equal(shownSnapshotValue({ a: [1] }), '{"a":[1]}');
});

t.test('the detail names entity, id, version, field, both values, and how to accept the change', async (t) => {
  const detail = snapshotDetail('range test', {
    ...check('differs'),
    differences: [
      { kind: 'range', snapshot: { from: 1, to: 9 }, actual: { from: 1, to: 10 } },
      field(1),
      { kind: 'only-now', entity: 'Account', id: 'a', since: 6, blockRange: [6, null] },
      { kind: 'only-in-snapshot', entity: 'Account', id: 'a', since: 5, blockRange: [5, 6] },
      { kind: 'block-range', entity: 'Account', id: 'b', since: 1, snapshot: [1, 5], actual: [1, null] },
    ],
  });
  t.equal(
    detail,
    '\n* range test\n\tSnapshot src/test/__snapshots__/range.snap.json: 5 differences\n' +
      '\t\tthe snapshot was taken over blocks 1..9, the test covers 1..10\n' +
      '\t\tTransfer t1, version from block 7: "value"\n\t\t\tsnapshot: 100n\n\t\t\tactual:   101n\n' +
      '\t\tAccount a, version from block 6: in the store now ([6,∞)), not in the snapshot\n' +
      '\t\tAccount a, version from block 5: in the snapshot ([5,6)), not in the store now\n' +
      '\t\tAccount b, version from block 1: block range\n\t\t\tsnapshot: [1,5)\n\t\t\tactual:   [1,∞)\n' +
      '\tIf the change is intended, run the tests again with --update-snapshots to accept it.',
  );
});

t.test('the first 20 differences, and a count of the rest', async (t) => {
  const detail = snapshotDetail(
    'r',
    check(
      'differs',
      Array.from({ length: 23 }, (_, i) => field(i)),
    ),
  );
  t.match(detail, /: 23 differences\n/);
  t.match(detail, /Transfer t19,/);
  t.notMatch(detail, /Transfer t20,/);
  t.match(detail, /\t\t\.\.\. and 3 more differences\n/);
});

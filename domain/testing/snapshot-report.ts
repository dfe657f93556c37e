import type { BlockRange, SnapshotValue } from './entity-snapshot.ts';
import type { SnapshotDifference, VersionRef } from './snapshot-differences.ts';
import type { SnapshotCheck } from './test-outcome.ts';

/** The differences a failed snapshot check shows; the rest are counted. */
export const SHOWN_SNAPSHOT_DIFFERENCES = 20;

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** The line a range test's snapshot check prints, beside its entity checks. */
export function snapshotLine(c: SnapshotCheck): string {
  const rows = plural(c.rows, 'row');
  switch (c.status) {
    case 'matched':
      return `Snapshot check PASSED (${rows}, ${c.file})`;
    case 'written':
      return `Snapshot written: ${rows} to ${c.file} (there was none for this test)`;
    case 'updated':
      return `Snapshot updated: ${rows} in ${c.file} (--update-snapshots)`;
    case 'differs':
      return `Snapshot check FAILED (${plural(c.differences.length, 'difference')} with ${c.file})`;
  }
}

/** A value of the snapshot as a difference shows it: a BigInt as `12n`, a date or bytes as their text, strings quoted. */
export function shownSnapshotValue(v: SnapshotValue | undefined): string {
  if (v === undefined) return '(no such field)';
  if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
    const [key, ...rest] = Object.keys(v);
    const x = key === undefined ? undefined : v[key];
    if (rest.length === 0 && typeof x === 'string') {
      if (key === '$bigint') return `${x}n`;
      if (key === '$date' || key === '$bytes' || key === '$number') return x;
    }
  }
  return JSON.stringify(v);
}

export const shownBlockRange = (r: BlockRange | null): string => (r === null ? '(no block range)' : `[${r[0]},${r[1] ?? '∞'})`);

const version = (r: VersionRef) => `${r.entity} ${r.id}${r.since === null ? '' : `, version from block ${r.since}`}`;
const values = (a: string, b: string) => `\t\t\tsnapshot: ${a}\n\t\t\tactual:   ${b}\n`;

function differenceLines(d: SnapshotDifference): string {
  switch (d.kind) {
    case 'range':
      return `\t\tthe snapshot was taken over blocks ${d.snapshot.from}..${d.snapshot.to}, the test covers ${d.actual.from}..${d.actual.to}\n`;
    case 'only-in-snapshot':
      return `\t\t${version(d)}: in the snapshot (${shownBlockRange(d.blockRange)}), not in the store now\n`;
    case 'only-now':
      return `\t\t${version(d)}: in the store now (${shownBlockRange(d.blockRange)}), not in the snapshot\n`;
    case 'block-range':
      return `\t\t${version(d)}: block range\n${values(shownBlockRange(d.snapshot), shownBlockRange(d.actual))}`;
    case 'field':
      return `\t\t${version(d)}: "${d.field}"\n${values(shownSnapshotValue(d.snapshot), shownSnapshotValue(d.actual))}`;
  }
}

/** A failed snapshot check in the failures summary: the first differences, a count of the rest, and how to accept them. */
export function snapshotDetail(test: string, c: SnapshotCheck): string {
  const shown = c.differences.slice(0, SHOWN_SNAPSHOT_DIFFERENCES).map(differenceLines).join('');
  const rest = c.differences.length - SHOWN_SNAPSHOT_DIFFERENCES;
  return (
    `\n* ${test}\n\tSnapshot ${c.file}: ${plural(c.differences.length, 'difference')}\n${shown}` +
    (rest > 0 ? `\t\t... and ${plural(rest, 'more difference')}\n` : '') +
    '\tIf the change is intended, run the tests again with --update-snapshots to accept it.'
  );
}

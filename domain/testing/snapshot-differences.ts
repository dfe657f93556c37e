import { compareRows, type BlockRange, type SnapshotRow, type SnapshotValue, type TestSnapshot } from './entity-snapshot.ts';
import { sameValue } from './entity-differences.ts';

/** A version, as a difference names it: entity, id and the block its version begins at (null without history). */
export interface VersionRef {
  entity: string;
  id: string;
  since: number | null;
}

/** One way what the range wrote differs from the snapshot. */
export type SnapshotDifference =
  | { kind: 'range'; snapshot: { from: number; to: number }; actual: { from: number; to: number } }
  /** a version the snapshot has and the store does not (`only-in-snapshot`), or the other way round (`only-now`) */
  | (VersionRef & { kind: 'only-in-snapshot' | 'only-now'; blockRange: BlockRange | null })
  /** the same version ends elsewhere */
  | (VersionRef & { kind: 'block-range'; snapshot: BlockRange | null; actual: BlockRange | null })
  /** a field of the same version; `undefined`: the side has no such field */
  | (VersionRef & { kind: 'field'; field: string; snapshot: SnapshotValue | undefined; actual: SnapshotValue | undefined });

const keyOf = (r: SnapshotRow) => JSON.stringify([r.entity, r.id, r.blockRange?.[0] ?? null]);
const refOf = (r: SnapshotRow): VersionRef => ({ entity: r.entity, id: r.id, since: r.blockRange?.[0] ?? null });

/**
 * How the snapshot and the store after the range differ, in row order (entity, id, version): the
 * range itself, versions only one side has, and per version its end and each field that differs.
 * Versions are matched by entity, id and the block they begin at. None: the snapshot matches.
 */
export function snapshotDifferences(snapshot: TestSnapshot, actual: TestSnapshot): SnapshotDifference[] {
  const out: SnapshotDifference[] = [];
  if (snapshot.from !== actual.from || snapshot.to !== actual.to)
    out.push({ kind: 'range', snapshot: { from: snapshot.from, to: snapshot.to }, actual: { from: actual.from, to: actual.to } });
  const before = new Map(snapshot.rows.map((r) => [keyOf(r), r]));
  const now = new Map(actual.rows.map((r) => [keyOf(r), r]));
  const rows = [...snapshot.rows, ...actual.rows.filter((r) => !before.has(keyOf(r)))].sort(compareRows);
  for (const row of rows) {
    const [was, is] = [before.get(keyOf(row)), now.get(keyOf(row))];
    if (was === undefined || is === undefined) {
      out.push({ kind: was === undefined ? 'only-now' : 'only-in-snapshot', ...refOf(row), blockRange: row.blockRange });
      continue;
    }
    out.push(...versionDifferences(was, is));
  }
  return out;
}

function versionDifferences(was: SnapshotRow, is: SnapshotRow): SnapshotDifference[] {
  const out: SnapshotDifference[] = [];
  const ref = refOf(is);
  if (!sameValue(was.blockRange, is.blockRange)) out.push({ kind: 'block-range', ...ref, snapshot: was.blockRange, actual: is.blockRange });
  const has = (o: object, k: string) => Object.prototype.hasOwnProperty.call(o, k);
  for (const field of [...new Set([...Object.keys(was.fields), ...Object.keys(is.fields)])].sort()) {
    const a = has(was.fields, field) ? was.fields[field] : undefined;
    const b = has(is.fields, field) ? is.fields[field] : undefined;
    if (a === undefined || b === undefined ? a !== b : !sameValue(a, b)) out.push({ kind: 'field', ...ref, field, snapshot: a, actual: b });
  }
  return out;
}

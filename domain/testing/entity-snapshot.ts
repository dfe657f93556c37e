import { IdxError } from '../errors.ts';

/**
 * A range test's snapshot: every version of every entity the test store holds after the range,
 * as plain JSON that reads the same whatever wrote it. Values are made unambiguous: a `BigInt`
 * is `{"$bigint": "…"}`, a `Date` `{"$date": "<ISO instant>"}`, bytes `{"$bytes": "0x…"}`, a
 * number JSON lacks (NaN, ±Infinity, -0) `{"$number": "…"}`, and an object with a key starting
 * with `$` is wrapped in `{"$object": …}`, so no two values read the same.
 */

/** A version read from the store: its entity, id, fields and block range (`[from, to)`, `to` null while live; null without history). */
export interface StoredVersion {
  entity: string;
  id: string;
  data: Readonly<Record<string, unknown>>;
  blockRange: BlockRange | null;
}

export type BlockRange = readonly [from: number, to: number | null];

/** A value as the snapshot file holds it. */
export type SnapshotValue = null | boolean | number | string | SnapshotValue[] | { [key: string]: SnapshotValue };

export interface SnapshotRow {
  entity: string;
  id: string;
  blockRange: BlockRange | null;
  /** every stored field but `id`, by name, in name order */
  fields: Record<string, SnapshotValue>;
}

/** One test's entry in the snapshot file. */
export interface TestSnapshot {
  from: number;
  to: number;
  rows: SnapshotRow[];
}

const hex = (bytes: Uint8Array) => `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;

/** A stored value as the snapshot holds it (see above); `undefined` is null. */
export function snapshotValue(value: unknown, depth = 0): SnapshotValue {
  if (value === null || value === undefined) return null;
  if (depth > 64) throw new IdxError('TEST_SNAPSHOT_INVALID', 'a value is nested too deeply to snapshot');
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return value;
    case 'number':
      return Number.isFinite(value) && !Object.is(value, -0) ? value : { $number: Object.is(value, -0) ? '-0' : String(value) };
    case 'bigint':
      return { $bigint: value.toString() };
    case 'object':
      break;
    default:
      return String(value);
  }
  if (value instanceof Date) return { $date: Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString() };
  if (ArrayBuffer.isView(value)) return { $bytes: hex(new Uint8Array(value.buffer, value.byteOffset, value.byteLength)) };
  if (Array.isArray(value)) return value.map((v) => snapshotValue(v, depth + 1));
  const keys = Object.keys(value).sort();
  const out: Record<string, SnapshotValue> = {};
  for (const k of keys) out[k] = snapshotValue((value as Record<string, unknown>)[k], depth + 1);
  return keys.some((k) => k.startsWith('$')) ? { $object: out } : out;
}

/** Rows in a stable order: by entity, id, then the block their version begins at. */
export function compareRows(a: Pick<SnapshotRow, 'entity' | 'id' | 'blockRange'>, b: Pick<SnapshotRow, 'entity' | 'id' | 'blockRange'>): number {
  if (a.entity !== b.entity) return a.entity < b.entity ? -1 : 1;
  if (a.id !== b.id) return a.id < b.id ? -1 : 1;
  return (a.blockRange?.[0] ?? -1) - (b.blockRange?.[0] ?? -1);
}

/** The snapshot of a range test from the versions the store holds after it. */
export function takeSnapshot(from: number, to: number, versions: readonly StoredVersion[]): TestSnapshot {
  const rows = versions.map((v): SnapshotRow => {
    const fields: Record<string, SnapshotValue> = {};
    for (const k of Object.keys(v.data).sort()) if (k !== 'id') fields[k] = snapshotValue(v.data[k]);
    return { entity: v.entity, id: v.id, blockRange: v.blockRange === null ? null : [v.blockRange[0], v.blockRange[1]], fields };
  });
  return { from, to, rows: rows.sort(compareRows) };
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const isHeight = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;

function isBlockRange(v: unknown): v is BlockRange | null {
  return v === null || (Array.isArray(v) && v.length === 2 && isHeight(v[0]) && (v[1] === null || isHeight(v[1])));
}

function isRow(v: unknown): v is SnapshotRow {
  return isObject(v) && typeof v.entity === 'string' && typeof v.id === 'string' && isBlockRange(v.blockRange) && isObject(v.fields);
}

/** A test's entry as read from the snapshot file, checked for the shape idx-node test writes; `where` names it in the error. */
export function readTestSnapshot(entry: unknown, where: string): TestSnapshot {
  if (!isObject(entry) || !isHeight(entry.from) || !isHeight(entry.to) || !Array.isArray(entry.rows) || !entry.rows.every(isRow))
    throw new IdxError(
      'TEST_SNAPSHOT_INVALID',
      `${where} is not a snapshot idx-node test wrote ({ from, to, rows: [{ entity, id, blockRange, fields }] }): run with --update-snapshots to write it again`,
    );
  return { from: entry.from, to: entry.to, rows: entry.rows };
}

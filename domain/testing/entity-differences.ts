import type { TestEntity } from './subql-test.ts';

/** One field whose stored value is not the expected one. */
export interface FieldDifference {
  field: string;
  expected: unknown;
  actual: unknown;
}

/**
 * How the stored entity differs from the expected one: `missing` when there is none, else the
 * fields that differ (none: it passes). As SubQuery's test runner: a field absent or undefined
 * counts as null, and values compare deeply (dates by time, bigints and byte arrays by value).
 * Unlike it, the fields of both sides are compared, so an expected value the handler never wrote
 * fails too.
 */
export function entityDifferences(expected: TestEntity, actual: Readonly<Record<string, unknown>> | undefined): 'missing' | FieldDifference[] {
  if (actual === undefined || actual === null) return 'missing';
  const fields = [...new Set([...Object.keys(actual), ...Object.keys(expected.data)])];
  const out: FieldDifference[] = [];
  for (const field of fields) {
    const want = expected.data[field] ?? null;
    const got = actual[field] ?? null;
    if (!sameValue(want, got)) out.push({ field, expected: want, actual: got });
  }
  return out;
}

/** Deep equality over what entity fields hold: primitives, bigint, Date, byte arrays, arrays and plain objects. */
export function sameValue(a: unknown, b: unknown, depth = 0): boolean {
  if (Object.is(a, b)) return true;
  if (a === null || b === null || typeof a !== 'object' || typeof b !== 'object') return false;
  if (depth > 64) return false;
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (ArrayBuffer.isView(a) || ArrayBuffer.isView(b)) {
    if (!ArrayBuffer.isView(a) || !ArrayBuffer.isView(b)) return false;
    const x = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
    const y = new Uint8Array(b.buffer, b.byteOffset, b.byteLength);
    return x.length === y.length && x.every((v, i) => v === y[i]);
  }
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  const rb = b as Record<string, unknown>;
  return ka.every((k) => Object.prototype.hasOwnProperty.call(rb, k) && sameValue((a as Record<string, unknown>)[k], rb[k], depth + 1));
}

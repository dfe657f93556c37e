import type { FieldDifference } from './entity-differences.ts';
import { snapshotDetail } from './snapshot-report.ts';
import { checkCounts, checkPassed, snapshotPassed, testPassed, type EntityCheck, type TestOutcome } from './test-outcome.ts';

/**
 * The lines `idx-node test` prints, worded as SubQuery's `subql-node test` prints them, so that
 * what a user greps for (or reads) is the same: a line per entity check, one per test, then the
 * failures in detail and the totals.
 */

export const checkLine = (c: EntityCheck): string => `Entity check ${checkPassed(c) ? 'PASSED' : 'FAILED'} (Entity ID: ${c.id})`;

export function testLine(o: TestOutcome): string {
  if (!('checks' in o)) return `Test ${o.name} failed to run: ${o.error.message.split('\n')[0]}`;
  const { passed, failed } = checkCounts(o);
  return `Test: ${o.name} completed with ${passed} passed and ${failed} failed checks`;
}

/** A value as the failure detail shows it: dates with their milliseconds, bigints as digits, objects as JSON. */
export function shownValue(value: unknown): string {
  if (value instanceof Date) return value.toISOString();
  if (value === null || typeof value !== 'object') return String(value);
  if (ArrayBuffer.isView(value)) {
    const bytes = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`;
  }
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
}

const attributeLines = (d: FieldDifference): string =>
  `\t\tattribute: "${d.field}":\n\t\t\texpected: "${shownValue(d.expected)}"\n\t\t\tactual:   "${shownValue(d.actual)}"\n`;

const ERROR_LABELS = { fetch: 'Fetch Block Error', runtime: 'Runtime Error', snapshot: 'Snapshot Error', recording: 'Recording Error' } as const;

/** The detail of each failed test: per failing entity, its name and id and the fields that differ (or that it was not found), and a range test's snapshot differences. */
export function failureDetails(outcomes: readonly TestOutcome[]): string[] {
  const out: string[] = [];
  for (const o of outcomes) {
    if (testPassed(o)) continue;
    if (!('checks' in o)) {
      const label = ERROR_LABELS[o.error.kind];
      out.push(`\n* ${o.name}\n${label}:\n${o.error.message}`);
      continue;
    }
    for (const c of o.checks.filter((x) => !checkPassed(x))) {
      const body = c.differences === 'missing' ? '\t\tExpected entity was not found' : c.differences.map(attributeLines).join('');
      out.push(`\n* ${o.name}\n\tEntity ${c.entity}: ${c.id}\n${body}`);
    }
    if (o.snapshot !== undefined && !snapshotPassed(o.snapshot)) out.push(snapshotDetail(o.name, o.snapshot));
  }
  return out;
}

/** The totals, in tests (not checks), as SubQuery's summary counts them. */
export function totals(outcomes: readonly TestOutcome[]): { total: number; passing: number; failing: number } {
  const passing = outcomes.filter(testPassed).length;
  return { total: outcomes.length, passing, failing: outcomes.length - passing };
}

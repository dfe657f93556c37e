import { entityDifferences, type FieldDifference } from './entity-differences.ts';
import { isRangeTest, type TestCase } from './range-test.ts';
import type { TestEntity } from './subql-test.ts';
import type { SnapshotDifference } from './snapshot-differences.ts';

/** One expected entity checked against the store. */
export interface EntityCheck {
  entity: string;
  id: string;
  /** `missing`: the store holds no such entity; otherwise the fields that differ (none: the check passed) */
  differences: 'missing' | FieldDifference[];
}

/**
 * A range test's snapshot check: `matched` the snapshot file's, `written` (there was none),
 * `updated` (--update-snapshots rewrote it) or `differs` (it fails, with the differences).
 */
export interface SnapshotCheck {
  /** the snapshot file, as the report names it */
  file: string;
  /** the versions the store held after the range */
  rows: number;
  status: 'matched' | 'written' | 'updated' | 'differs';
  differences: SnapshotDifference[];
}

/**
 * What one test came to: its entity checks (and a range test's snapshot check), or the error that
 * stopped it before they ran (`fetch`: the blocks could not be read; `runtime`: storing the
 * dependent entities or a handler failed; `snapshot`: the snapshot file could not be read or written;
 * `recording`: it asked the chain for something its recording lacks).
 */
export type TestOutcome =
  | { name: string; checks: EntityCheck[]; snapshot?: SnapshotCheck }
  | { name: string; error: { kind: 'fetch' | 'runtime' | 'snapshot' | 'recording'; message: string }; expectedCount: number };

export const checkPassed = (c: EntityCheck): boolean => c.differences !== 'missing' && c.differences.length === 0;

export const snapshotPassed = (s: SnapshotCheck): boolean => s.status !== 'differs';

/** A test passes when it ran and every one of its checks passed. */
export const testPassed = (o: TestOutcome): boolean => 'checks' in o && o.checks.every(checkPassed) && (o.snapshot === undefined || snapshotPassed(o.snapshot));

/**
 * Checks passed and failed, as SubQuery counts them: a test that could not run fails each of its
 * expected entities. A snapshot counts as one check.
 */
export function checkCounts(o: TestOutcome): { passed: number; failed: number } {
  if (!('checks' in o)) return { passed: 0, failed: Math.max(1, o.expectedCount) };
  const snapshot = o.snapshot === undefined ? [] : [snapshotPassed(o.snapshot)];
  const passed = o.checks.filter(checkPassed).length + snapshot.filter(Boolean).length;
  return { passed, failed: o.checks.length + snapshot.length - passed };
}

/** What stopped a test, as its report shows it: the mapping's stack when there is one. */
export function describedError(err: unknown): string {
  const e = err as { message?: string; mappingStack?: string } | null | undefined;
  return e?.mappingStack ?? e?.message ?? String(err);
}

/** A test stopped before its checks ran: each of its checks (expected entities, a range test's snapshot) counts as failed. */
export function testFailed(test: TestCase, kind: Extract<TestOutcome, { error: unknown }>['error']['kind'], err: unknown): TestOutcome {
  const snapshot = isRangeTest(test) && test.snapshot ? 1 : 0;
  return { name: test.name, error: { kind, message: describedError(err) }, expectedCount: test.expectedEntities.length + snapshot };
}

/** Each expected entity of a test against what the store holds for it (`read`: its latest version). */
export async function expectedChecks(
  expected: readonly TestEntity[],
  read: (entity: string, id: string) => Promise<Readonly<Record<string, unknown>> | undefined>,
): Promise<EntityCheck[]> {
  const checks: EntityCheck[] = [];
  for (const e of expected) checks.push({ entity: e.entity, id: e.id, differences: entityDifferences(e, await read(e.entity, e.id)) });
  return checks;
}

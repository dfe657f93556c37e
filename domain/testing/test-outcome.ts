import type { FieldDifference } from './entity-differences.ts';

/** One expected entity checked against the store. */
export interface EntityCheck {
  entity: string;
  id: string;
  /** `missing`: the store holds no such entity; otherwise the fields that differ (none: the check passed) */
  differences: 'missing' | FieldDifference[];
}

/**
 * What one `subqlTest` came to: its entity checks, or the error that stopped it before they ran
 * (`fetch`: the block could not be read; `runtime`: storing the dependent entities or the handler failed;
 * `recording`: it asked the chain for something its recording lacks).
 */
export type TestOutcome =
  { name: string; checks: EntityCheck[] } | { name: string; error: { kind: 'fetch' | 'runtime' | 'recording'; message: string }; expectedCount: number };

export const checkPassed = (c: EntityCheck): boolean => c.differences !== 'missing' && c.differences.length === 0;

/** A test passes when it ran and every one of its checks passed. */
export const testPassed = (o: TestOutcome): boolean => 'checks' in o && o.checks.every(checkPassed);

/** Checks passed and failed, as SubQuery counts them: a test that could not run fails each of its expected entities. */
export function checkCounts(o: TestOutcome): { passed: number; failed: number } {
  if (!('checks' in o)) return { passed: 0, failed: Math.max(1, o.expectedCount) };
  const passed = o.checks.filter(checkPassed).length;
  return { passed, failed: o.checks.length - passed };
}

import type { SubqlTestCase, TestEntity } from './subql-test.ts';

/** The most blocks one range test may cover: a test stays a test, not a reindex. */
export const MAX_RANGE_TEST_BLOCKS = 10_000;

/**
 * idx's `subqlRangeTest(name, { from, to, dependentEntities, expectedEntities, snapshot })`, as a
 * test file registered it and the sandbox handed it over: the project indexed over blocks
 * `from..to` (both included), as the node indexes it, into a throwaway store.
 */
export interface RangeTestCase {
  kind: 'range';
  name: string;
  from: number;
  to: number;
  /** stored at `from`, before its block is indexed */
  dependentEntities: TestEntity[];
  /** compared, field by field, with the store's latest version after the range */
  expectedEntities: TestEntity[];
  /** every version the store holds after the range compared with (or written to) the test file's snapshot file */
  snapshot: boolean;
}

/** What a test file registers: `subqlTest`s and `subqlRangeTest`s, in the order it made them. */
export type TestCase = SubqlTestCase | RangeTestCase;

export const isRangeTest = (t: TestCase): t is RangeTestCase => 'kind' in t && t.kind === 'range';

/** Why `from..to` is not a range a test may cover; undefined when it is. */
export function rangeProblem(from: unknown, to: unknown): string | undefined {
  const whole = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0;
  if (!whole(from)) return `"from" must be a whole block number, got ${String(from)}`;
  if (!whole(to)) return `"to" must be a whole block number, got ${String(to)}`;
  if (from > to) return `"from" (${from}) is above "to" (${to})`;
  const blocks = to - from + 1;
  if (blocks > MAX_RANGE_TEST_BLOCKS) return `a range test covers at most ${MAX_RANGE_TEST_BLOCKS} blocks, but ${from}..${to} is ${blocks}; split it`;
  return undefined;
}

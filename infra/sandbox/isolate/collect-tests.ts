import { isRangeTest, rangeProblem, type RangeTestCase, type TestCase } from '../../../domain/testing/range-test.ts';
import type { SubqlTestCase, TestEntity } from '../../../domain/testing/subql-test.ts';
import { clonePlain } from './clone-plain.ts';

const RANGE_OPTIONS = ['from', 'to', 'dependentEntities', 'expectedEntities', 'snapshot'];

/**
 * The tests a test bundle registered with `@subql/testing`'s `subqlTest` and idx's
 * `subqlRangeTest` (the global array `subqlTests`, as SubQuery's TestSandbox reads it; a range
 * test is marked `kind: 'range'`), as plain data for the host: each entity with its class's
 * `_name`, its id and its fields. Undefined when the bundle registered none.
 */
export function collectTests(registered: unknown): TestCase[] | undefined {
  if (!Array.isArray(registered)) return undefined;
  const tests = registered.map((raw: unknown, i): TestCase => {
    const t = (raw ?? {}) as Record<string, unknown>;
    return t.kind === 'range' ? rangeTest(t, i) : blockTest(t, i);
  });
  const snapshotted = new Set<string>();
  for (const t of tests.filter(isRangeTest).filter((r) => r.snapshot)) {
    if (snapshotted.has(t.name))
      throw new TypeError(`subqlRangeTest "${t.name}": another snapshot test of this file has the same name (snapshots are kept by name)`);
    snapshotted.add(t.name);
  }
  return tests;
}

function blockTest(t: Record<string, unknown>, i: number): SubqlTestCase {
  const name = typeof t.name === 'string' ? t.name : `test ${i + 1}`;
  const label = `subqlTest "${name}"`;
  if (typeof t.blockHeight !== 'number' || !Number.isSafeInteger(t.blockHeight) || t.blockHeight < 0)
    throw new TypeError(`${label}: the block height must be a whole number, got ${String(t.blockHeight)}`);
  if (typeof t.handler !== 'string') throw new TypeError(`${label}: the handler must be the name of a handler, got ${typeof t.handler}`);
  return {
    name,
    blockHeight: t.blockHeight,
    handler: t.handler,
    dependentEntities: entities(label, 'dependent', t.dependentEntities),
    expectedEntities: entities(label, 'expected', t.expectedEntities),
  };
}

function rangeTest(t: Record<string, unknown>, i: number): RangeTestCase {
  if (typeof t.name !== 'string' || t.name === '') throw new TypeError(`subqlRangeTest ${i + 1}: the name must be a non-empty string, got ${String(t.name)}`);
  const label = `subqlRangeTest "${t.name}"`;
  const o = t.options as Record<string, unknown> | null | undefined;
  if (o === null || typeof o !== 'object' || Array.isArray(o))
    throw new TypeError(`${label}: the second argument must be an object { from, to, dependentEntities?, expectedEntities?, snapshot? }`);
  const unknown = Object.keys(o).filter((k) => !RANGE_OPTIONS.includes(k));
  if (unknown.length > 0) throw new TypeError(`${label}: unknown option ${unknown.map((k) => `"${k}"`).join(', ')} (known: ${RANGE_OPTIONS.join(', ')})`);
  const problem = rangeProblem(o.from, o.to);
  if (problem !== undefined) throw new TypeError(`${label}: ${problem}`);
  if (o.snapshot !== undefined && typeof o.snapshot !== 'boolean') throw new TypeError(`${label}: "snapshot" must be true or false, got ${String(o.snapshot)}`);
  return {
    kind: 'range',
    name: t.name,
    from: o.from as number,
    to: o.to as number,
    dependentEntities: entities(label, 'dependent', o.dependentEntities),
    expectedEntities: entities(label, 'expected', o.expectedEntities),
    snapshot: o.snapshot === true,
  };
}

function entities(label: string, which: string, list: unknown): TestEntity[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new TypeError(`${label}: the ${which} entities must be an array`);
  return list.map((e: unknown, i) => {
    const entity = (e as { _name?: unknown } | null)?._name;
    const id = (e as { id?: unknown } | null)?.id;
    if (typeof entity !== 'string')
      throw new TypeError(`${label}: ${which} entity ${i + 1} is not an entity (make it with the generated class, e.g. Transfer.create({...}))`);
    if (typeof id !== 'string') throw new TypeError(`${label}: ${which} ${entity} ${i + 1} has no string id`);
    return { entity, id, data: clonePlain(e) as Record<string, unknown> };
  });
}

import type { SubqlTestCase, TestEntity } from '../../../domain/testing/subql-test.ts';
import { clonePlain } from './clone-plain.ts';

/**
 * The tests a test bundle registered with `@subql/testing`'s `subqlTest` (the global array
 * `subqlTests`, as SubQuery's TestSandbox reads it), as plain data for the host: each entity with
 * its class's `_name`, its id and its fields. Undefined when the bundle registered none.
 */
export function collectTests(registered: unknown): SubqlTestCase[] | undefined {
  if (!Array.isArray(registered)) return undefined;
  return registered.map((raw: unknown, i) => {
    const t = (raw ?? {}) as Record<string, unknown>;
    const name = typeof t.name === 'string' ? t.name : `test ${i + 1}`;
    if (typeof t.blockHeight !== 'number' || !Number.isSafeInteger(t.blockHeight) || t.blockHeight < 0)
      throw new TypeError(`subqlTest "${name}": the block height must be a whole number, got ${String(t.blockHeight)}`);
    if (typeof t.handler !== 'string') throw new TypeError(`subqlTest "${name}": the handler must be the name of a handler, got ${typeof t.handler}`);
    return {
      name,
      blockHeight: t.blockHeight,
      handler: t.handler,
      dependentEntities: entities(name, 'dependent', t.dependentEntities),
      expectedEntities: entities(name, 'expected', t.expectedEntities),
    };
  });
}

function entities(test: string, which: string, list: unknown): TestEntity[] {
  if (list === undefined || list === null) return [];
  if (!Array.isArray(list)) throw new TypeError(`subqlTest "${test}": the ${which} entities must be an array`);
  return list.map((e: unknown, i) => {
    const entity = (e as { _name?: unknown } | null)?._name;
    const id = (e as { id?: unknown } | null)?.id;
    if (typeof entity !== 'string')
      throw new TypeError(`subqlTest "${test}": ${which} entity ${i + 1} is not an entity (make it with the generated class, e.g. Transfer.create({...}))`);
    if (typeof id !== 'string') throw new TypeError(`subqlTest "${test}": ${which} ${entity} ${i + 1} has no string id`);
    return { entity, id, data: clonePlain(e) as Record<string, unknown> };
  });
}

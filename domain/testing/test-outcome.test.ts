import t from 'tap';
import { describedError, expectedChecks, testFailed } from './test-outcome.ts';

const entity = (id: string, data: Record<string, unknown>) => ({ entity: 'Account', id, data: { id, ...data } });

t.test("a test stopped before its checks: the mapping's stack when there is one; each check counts as failed", async (t) => {
  t.equal(
    describedError(Object.assign(new Error('boom'), { mappingStack: 'Error: boom\n    at handleTransfer (src/mappings/erc20.ts:6:40)' })),
    'Error: boom\n    at handleTransfer (src/mappings/erc20.ts:6:40)',
  );
  t.equal(describedError(new Error('boom')), 'boom');
  t.equal(describedError('plain'), 'plain');
  const expected = [entity('a', {}), entity('b', {})];
  const subql = { name: 's', blockHeight: 1, handler: 'h', dependentEntities: [], expectedEntities: expected };
  t.same(testFailed(subql, 'fetch', new Error('gone')), { name: 's', error: { kind: 'fetch', message: 'gone' }, expectedCount: 2 });
  const range = { kind: 'range' as const, name: 'r', from: 1, to: 2, dependentEntities: [], expectedEntities: expected, snapshot: true };
  t.equal((testFailed(range, 'recording', new Error('x')) as { expectedCount: number }).expectedCount, 3, "a range test's snapshot is one check more");
});

t.test('each expected entity against what the store holds', async (t) => {
  const stored: Record<string, Record<string, unknown>> = { a: { id: 'a', balance: 2n } };
  const checks = await expectedChecks([entity('a', { balance: 3n }), entity('b', {})], async (_entity, id) => stored[id]);
  t.same(checks, [
    { entity: 'Account', id: 'a', differences: [{ field: 'balance', expected: 3n, actual: 2n }] },
    { entity: 'Account', id: 'b', differences: 'missing' },
  ]);
});

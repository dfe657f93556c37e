import t from 'tap';
import { collectTests } from './collect-tests.ts';

// as idx codegen generates them: `_name` a getter on the prototype, methods that are not data
class Transfer {
  id: string;
  value?: bigint;
  constructor(id: string) {
    this.id = id;
  }
  get _name(): string {
    return 'Transfer';
  }
  async save(): Promise<void> {}
}
const transfer = (id: string, value: bigint) => Object.assign(new Transfer(id), { value });

t.test('no subqlTests registered: none', async (t) => {
  t.equal(collectTests(undefined), undefined);
});

t.test('each test as plain data, entities with their name, id and fields', async (t) => {
  const tests = collectTests([
    { name: 'a', blockHeight: 7, dependentEntities: [transfer('d', 1n)], expectedEntities: [transfer('e', 2n)], handler: 'handleLog' },
  ]);
  t.same(tests, [
    {
      name: 'a',
      blockHeight: 7,
      handler: 'handleLog',
      dependentEntities: [{ entity: 'Transfer', id: 'd', data: { id: 'd', value: 1n } }],
      expectedEntities: [{ entity: 'Transfer', id: 'e', data: { id: 'e', value: 2n } }],
    },
  ]);
  t.notOk('save' in tests![0]!.expectedEntities[0]!.data, 'no methods in the data');
});

t.test('what is not a test or an entity is refused, naming the test', async (t) => {
  t.throws(() => collectTests([{ name: 'h', blockHeight: -1, handler: 'x' }]), /subqlTest "h": the block height/);
  t.throws(() => collectTests([{ name: 'h', blockHeight: 1, handler: 3 }]), /subqlTest "h": the handler/);
  t.throws(() => collectTests([{ name: 'h', blockHeight: 1, handler: 'x', expectedEntities: [{ id: 'a' }] }]), /expected entity 1 is not an entity/);
  t.throws(() => collectTests([{ name: 'h', blockHeight: 1, handler: 'x', dependentEntities: 'no' }]), /dependent entities must be an array/);
});

t.test('a subqlRangeTest as plain data, marked as a range test', async (t) => {
  const tests = collectTests([
    { name: 'a', blockHeight: 7, handler: 'handleLog' },
    { kind: 'range', name: 'r', options: { from: 3, to: 9, dependentEntities: [transfer('d', 1n)], snapshot: true } },
    { kind: 'range', name: 's', options: { from: 4, to: 4 } },
  ]);
  t.equal(tests!.length, 3);
  t.notOk('kind' in tests![0]!, 'a subqlTest stays as it was');
  t.same(tests![1], {
    kind: 'range',
    name: 'r',
    from: 3,
    to: 9,
    dependentEntities: [{ entity: 'Transfer', id: 'd', data: { id: 'd', value: 1n } }],
    expectedEntities: [],
    snapshot: true,
  });
  t.same(tests![2], { kind: 'range', name: 's', from: 4, to: 4, dependentEntities: [], expectedEntities: [], snapshot: false });
});

t.test('a range test with a bad range or options is refused, naming the test', async (t) => {
  const range =
    (options: unknown, name: unknown = 'r') =>
    () =>
      collectTests([{ kind: 'range', name, options }]);
  t.throws(range({ from: 1.5, to: 3 }), /subqlRangeTest "r": "from" must be a whole block number, got 1.5/);
  t.throws(range({ from: 1, to: -3 }), /"to" must be a whole block number/);
  t.throws(range({ from: 9, to: 3 }), /"from" \(9\) is above "to" \(3\)/);
  t.throws(range({ from: 0, to: 10_000 }), /at most 10000 blocks, but 0\.\.10000 is 10001/);
  t.doesNotThrow(range({ from: 1, to: 10_000 }), '10000 blocks are allowed');
  t.throws(range({ from: 1, to: 2, snapshot: 'yes' }), /"snapshot" must be true or false/);
  t.throws(range({ from: 1, to: 2, snapShot: true }), /unknown option "snapShot"/);
  t.throws(range(5), /the second argument must be an object/);
  t.throws(range({ from: 1, to: 2 }, ''), /subqlRangeTest 1: the name must be a non-empty string/);
  t.throws(range({ from: 1, to: 2, expectedEntities: [{ id: 'a' }] }), /subqlRangeTest "r": expected entity 1 is not an entity/);
  t.throws(
    () =>
      collectTests([
        { kind: 'range', name: 'r', options: { from: 1, to: 2, snapshot: true } },
        { kind: 'range', name: 'r', options: { from: 3, to: 4, snapshot: true } },
      ]),
    /another snapshot test of this file has the same name/,
  );
});

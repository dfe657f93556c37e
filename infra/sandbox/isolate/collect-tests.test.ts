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

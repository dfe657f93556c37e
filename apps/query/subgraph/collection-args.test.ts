import t from 'tap';
import { entityTables } from '../entity-tables.ts';
import { connectionArgs } from './collection-args.ts';
import { wherePlans } from './where-plan.ts';
import { storedProjectOf } from '../../../test/support/stored-project.ts';

const plans = wherePlans(entityTables(storedProjectOf(`type Transfer @entity { id: ID!, value: BigInt!, memo: String }`)));
const args = (a: Parameters<typeof connectionArgs>[2], max = 1000) => connectionArgs(plans, 'Transfer', a, max);

t.test("graph-node's defaults: 100 rows, id ascending", async (t) => {
  t.same(args({}), { first: 100, offset: 0, orderBy: ['PRIMARY_KEY_ASC'] });
  t.same(args({ first: null, skip: null }), { first: 100, offset: 0, orderBy: ['PRIMARY_KEY_ASC'] });
  t.same(args({ orderDirection: 'desc' }).orderBy, ['PRIMARY_KEY_ASC'], 'orderDirection alone changes nothing, as in graph-node');
});

t.test('orderBy, skip and where become the connection arguments', async (t) => {
  t.same(args({ first: 10, skip: 20, orderBy: 'VALUE', orderDirection: 'desc', where: { value_gt: '5' } }), {
    first: 10,
    offset: 20,
    orderBy: ['VALUE_DESC'],
    filter: { value: { greaterThan: '5' } },
  });
  t.same(args({ orderBy: 'MEMO' }).orderBy, ['MEMO_ASC']);
});

t.test('first and skip within graph-node bounds', async (t) => {
  t.equal(args({ first: 1000 }).first, 1000);
  t.equal(args({ first: 0 }).first, 0);
  t.equal(args({ skip: 5000 }).offset, 5000);
  t.throws(() => args({ first: 1001 }), {
    message: 'The `first` argument must be between 0 and 1000, but is 1001',
    extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit: 1000 },
  });
  t.throws(() => args({ skip: 5001 }), {
    message: 'The `skip` argument must be between 0 and 5000, but is 5001',
    extensions: { code: 'QUERY_LIMIT_EXCEEDED' },
  });
  t.throws(() => args({ first: -1 }), { message: 'The `first` argument must be between 0 and 1000, but is -1', extensions: { code: 'BAD_USER_INPUT' } });
  t.throws(() => args({ skip: -1 }), { message: 'The `skip` argument must be between 0 and 5000, but is -1', extensions: { code: 'BAD_USER_INPUT' } });
  t.equal(args({ first: 2000 }, 2000).first, 2000, 'a larger --query-limit raises the bound');
});

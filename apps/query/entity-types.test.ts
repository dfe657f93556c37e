import t from 'tap';
import { entityTables } from './entity-tables.ts';
import { orderByValues } from './entity-types.ts';
import { connectionArgs, typeOf } from './graphql-type-names.ts';
import { isNode } from './node-interface.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

const tables = entityTables(
  storedProjectOf(`
  type Account @entity { id: ID!, balance: BigInt!, sent: [Transfer] @derivedFrom(field: "from") }
  type Transfer @entity { id: ID!, from: Account!, at: Date }
  type Weird @entity { id: ID!, nodeId: String }
`),
);
const transfer = tables.get('Transfer')!;

t.test('orderBy: NATURAL, the orderable columns, the primary key, then the related rows', async (t) => {
  t.same(Object.keys(orderByValues(transfer, tables)), [
    'NATURAL',
    'ID_ASC',
    'ID_DESC',
    'FROM_ID_ASC',
    'FROM_ID_DESC',
    'AT_ASC',
    'AT_DESC',
    'PRIMARY_KEY_ASC',
    'PRIMARY_KEY_DESC',
    'ACCOUNT_BY_FROM_ID__ID_ASC',
    'ACCOUNT_BY_FROM_ID__ID_DESC',
    'ACCOUNT_BY_FROM_ID__BALANCE_ASC',
    'ACCOUNT_BY_FROM_ID__BALANCE_DESC',
  ]);
  t.same(
    Object.keys(orderByValues(tables.get('Account')!, tables)).slice(5, 9),
    ['PRIMARY_KEY_ASC', 'PRIMARY_KEY_DESC', 'TRANSFERS_BY_FROM_ID__COUNT_ASC', 'TRANSFERS_BY_FROM_ID__COUNT_DESC'],
    'rows pointing back order by their count, after the primary key',
  );
});

t.test('column types, connection arguments and which entities are Nodes', async (t) => {
  t.same(
    transfer.columns.map((c) => [c.name, typeOf(c)]),
    [
      ['id', 'String'],
      ['fromId', 'String'],
      ['at', 'Datetime'],
    ],
  );
  t.same(connectionArgs(transfer).orderBy, { type: '[TransfersOrderBy!]', defaultValue: ['PRIMARY_KEY_ASC'], description: 'The order of the rows.' });
  t.same(
    [...tables.values()].map((x) => [x.names.type, isNode(x)]),
    [
      ['Account', true],
      ['Transfer', true],
      ['Weird', false],
    ],
    'an entity with its own nodeId field is no Node',
  );
});

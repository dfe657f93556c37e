import t from 'tap';
import { entityTables } from './entity-tables.ts';
import { relatedOrders } from './related-orders.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

const tables = entityTables(
  storedProjectOf(`
  type StarterEntity @entity { id: ID!, owner: Account, field1: Int!, tags: [String], meta: JSON }
  type Account @entity { id: ID!, balance: BigInt!, starters: [StarterEntity] @derivedFrom(field: "owner"), sent: [Transfer] @derivedFrom(field: "from") }
  type Transfer @entity { id: ID!, from: Account!, to: Account! }
`),
);

t.test('related orderBy values named as pg-order-by-related names them', async (t) => {
  t.same([...relatedOrders(tables.get('StarterEntity')!, tables).keys()], ['ACCOUNT_BY_OWNER_ID__ID', 'ACCOUNT_BY_OWNER_ID__BALANCE']);
  t.same(
    [...relatedOrders(tables.get('Transfer')!, tables).keys()],
    ['ACCOUNT_BY_FROM_ID__ID', 'ACCOUNT_BY_FROM_ID__BALANCE', 'ACCOUNT_BY_TO_ID__ID', 'ACCOUNT_BY_TO_ID__BALANCE'],
  );
  t.same(
    [...relatedOrders(tables.get('Account')!, tables).keys()],
    ['STARTER_ENTITIES_BY_OWNER_ID__COUNT', 'STARTERS_COUNT', 'TRANSFERS_BY_FROM_ID__COUNT', 'SENT_COUNT'],
    'rows pointing back are counted, named by pg-order-by-related and by the relation, as SubQuery names both',
  );
  const balance = relatedOrders(tables.get('Transfer')!, tables).get('ACCOUNT_BY_FROM_ID__BALANCE')!;
  t.equal(
    balance.sql('t', 12n),
    '(select r."balance" from "app"."accounts" r where r.id = t."from_id" and r.__block_range @> (12::int8))',
    'read at the height',
  );
  t.equal(balance.sql('t', undefined), '(select r."balance" from "app"."accounts" r where r.id = t."from_id" and upper_inf(r.__block_range))');
  t.equal(balance.column.nullable, true, 'a missing related row orders as NULL');
});

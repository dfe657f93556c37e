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
    [...relatedOrders(tables.get('Account')!, tables).keys()].filter((k) => k.endsWith('COUNT')),
    ['STARTER_ENTITIES_BY_OWNER_ID__COUNT', 'STARTERS_COUNT', 'TRANSFERS_BY_FROM_ID__COUNT', 'SENT_COUNT'],
    'rows pointing back are counted, named by pg-order-by-related and by the relation, as SubQuery names both',
  );
  const balance = relatedOrders(tables.get('Transfer')!, tables).get('ACCOUNT_BY_FROM_ID__BALANCE')!;
  t.equal(
    balance.sql('t', 12n),
    '(select r."balance" from "app"."accounts" r where r.id = t."from_id" and (lower(r.__block_range) <= (12::int8) and r.__block_range @> (12::int8)))',
    'read at the height',
  );
  t.equal(balance.sql('t', undefined), '(select r."balance" from "app"."accounts" r where r.id = t."from_id" and upper_inf(r.__block_range))');
  t.equal(balance.column.nullable, true, 'a missing related row orders as NULL');
});

t.test("orders by an aggregate of the rows pointing back, named as SubQuery's aggregate orders name them", async (t) => {
  const orders = relatedOrders(tables.get('Account')!, tables);
  t.ok(['SENT_COUNT', 'SENT_DISTINCT_COUNT_TO_ID', 'STARTERS_SUM_FIELD1', 'STARTERS_AVERAGE_FIELD1', 'STARTERS_MAX_OWNER_ID'].every((s) => orders.has(s)));
  t.notOk(orders.has('STARTERS_SUM_OWNER_ID'), 'no sum of a text: PostgreSQL has none (SubQuery offers it, and fails)');
  t.notOk(orders.has('STARTERS_MIN_TAGS'), 'no least of a list');
  t.equal(
    orders.get('STARTERS_SUM_FIELD1')!.sql('t', undefined),
    '(select coalesce(sum(r."field1"), 0)::numeric from "app"."starter_entities" r where r."owner_id" = t.id and upper_inf(r.__block_range))',
  );
});

import { getNamedType, isEnumType, parse, type GraphQLObjectType, type GraphQLSchema } from 'graphql';
import t from 'tap';
import { entityTables } from '../entity-tables.ts';
import { queryComplexity } from '../query-complexity.ts';
import { buildSubgraphSchema } from './build-subgraph-schema.ts';
import { storedProjectOf } from '../../../test/support/stored-project.ts';

const build = (text: string, flat = false): GraphQLSchema => {
  const project = storedProjectOf(text, { historical: !flat });
  return buildSubgraphSchema({ project, tables: entityTables(project) });
};

const schema = build(`
  enum Kind { MINT, TRANSFER }
  type Account @entity {
    id: ID!
    balance: BigInt!
    sentTransfers: [Transfer] @derivedFrom(field: "from")
  }
  type Transfer @entity {
    id: ID!
    from: Account!
    to: Account
    value: BigInt!
    price: BigDecimal
    ratio: Float
    at: Date!
    ats: [Date!]
    data: Bytes
    meta: JSON
    kind: Kind
    tags: [String!]!
  }
  type Sheep @entity { id: ID! }
`);
const query = schema.getQueryType()!;
const typeOf = (type: string, field: string) => String((schema.getType(type) as GraphQLObjectType).getFields()[field]!.type);

t.test("graph-node's query fields and arguments", async (t) => {
  const transfers = query.getFields().transfers!;
  t.equal(String(transfers.type), '[Transfer!]!');
  t.same(
    transfers.args.map((a) => [a.name, String(a.type), a.defaultValue]),
    [
      ['skip', 'Int', 0],
      ['first', 'Int', 100],
      ['orderBy', 'Transfer_orderBy', undefined],
      ['orderDirection', 'OrderDirection', undefined],
      ['where', 'Transfer_filter', undefined],
      ['block', 'Block_height', undefined],
      ['subgraphError', '_SubgraphErrorPolicy_!', 'deny'],
    ],
  );
  t.same(
    query.getFields().transfer!.args.map((a) => `${a.name}: ${String(a.type)}`),
    ['id: ID!', 'block: Block_height', 'subgraphError: _SubgraphErrorPolicy_!'],
  );
  t.ok(query.getFields().sheep && query.getFields().sheep_collection, 'Sheep: sheep and sheep_collection');
  t.equal(String(query.getFields()._meta!.type), '_Meta_');
  t.same(Object.keys((schema.getType('Block_height') as GraphQLObjectType).getFields()), ['hash', 'number', 'number_gte']);
});

t.test('entity types in graph-node scalars', async (t) => {
  t.equal(typeOf('Transfer', 'id'), 'ID!');
  t.equal(typeOf('Transfer', 'value'), 'BigInt!');
  t.equal(typeOf('Transfer', 'price'), 'BigDecimal');
  t.equal(typeOf('Transfer', 'ratio'), 'Float');
  t.equal(typeOf('Transfer', 'at'), 'String!', 'Date: an ISO string');
  t.equal(typeOf('Transfer', 'ats'), '[String!]');
  t.equal(typeOf('Transfer', 'data'), 'Bytes');
  t.equal(typeOf('Transfer', 'meta'), 'JSON');
  t.equal(typeOf('Transfer', 'kind'), 'Kind');
  t.equal(typeOf('Transfer', 'tags'), '[String!]!');
  t.equal(typeOf('Transfer', 'from'), 'Account!');
  t.equal(typeOf('Transfer', 'to'), 'Account');
  t.notOk((schema.getType('Transfer') as GraphQLObjectType).getFields().fromId, 'no fromId: graph-node has none');
  const sent = (schema.getType('Account') as GraphQLObjectType).getFields().sentTransfers!;
  t.equal(String(sent.type), '[Transfer!]!');
  t.same(
    sent.args.map((a) => a.name),
    ['skip', 'first', 'orderBy', 'orderDirection', 'where'],
    'a @derivedFrom list is a collection, read at the parent block',
  );
  t.same(Object.keys((schema.getType('Account') as GraphQLObjectType).getFields()), ['id', 'balance', 'sentTransfers'], "schema.graphql's order");
});

t.test('orderBy: one value per orderable column, named by its field', async (t) => {
  const orderBy = schema.getType('Transfer_orderBy');
  if (!isEnumType(orderBy)) throw new Error('Transfer_orderBy is no enum');
  t.same(
    orderBy.getValues().map((v) => [v.name, v.value]),
    [
      ['id', 'ID'],
      ['from', 'FROM_ID'],
      ['to', 'TO_ID'],
      ['value', 'VALUE'],
      ['price', 'PRICE'],
      ['ratio', 'RATIO'],
      ['at', 'AT'],
      ['data', 'DATA'],
      ['kind', 'KIND'],
      ['from__id', 'ACCOUNT_BY_FROM_ID__ID'],
      ['from__balance', 'ACCOUNT_BY_FROM_ID__BALANCE'],
      ['to__id', 'ACCOUNT_BY_TO_ID__ID'],
      ['to__balance', 'ACCOUNT_BY_TO_ID__BALANCE'],
    ],
    "lists and JSON cannot order; a relation's child fields can (the SubQuery dialect's related orders)",
  );
  t.equal(getNamedType((schema.getType('Transfer_filter') as GraphQLObjectType).getFields().from_!.type).name, 'Account_filter');
});

t.test('complexity counts as in the SubQuery dialect: fields that select fields', async (t) => {
  const cost = (q: string) => queryComplexity(schema, parse(q), undefined, {});
  t.equal(cost('{ transfers(first: 10) { id value from { id balance } } }'), 2);
  t.equal(cost('{ accounts { sentTransfers(first: 5) { id to { id } } } _meta { block { number } } }'), 5);
});

t.test("names graph-node's schema would not hold are refused with both names", async (t) => {
  t.throws(() => build('type OrderDirection @entity { id: ID! }'), { code: 'OPTION_NOT_AVAILABLE', message: /--subgraph: the name OrderDirection/ });
  t.throws(() => build('type Transfer_filter @entity { id: ID! } type Transfer @entity { id: ID! }'), {
    message: /Transfer_filter of Transfer's filter is also that of entity Transfer_filter/,
  });
});

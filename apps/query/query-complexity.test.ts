import { parse } from 'graphql';
import t from 'tap';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { buildSchema } from './build-schema.ts';
import { queryComplexity } from './query-complexity.ts';

const model = parseSchema(`
  type Account @entity { id: ID!, balance: BigInt!, sent: [Transfer] @derivedFrom(field: "from") }
  type Transfer @entity { id: ID!, value: BigInt!, from: Account!, to: Account! }
`);
const { schema } = buildSchema({
  project: { schema: 'app', model, historicalTables: new Set(['accounts', 'transfers']), fingerprint: '' },
  settings: { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 1000 },
  version: 'test',
});
const cost = (query: string, variables: Record<string, unknown> = {}, limit = 100) => queryComplexity(schema, parse(query), undefined, variables, limit);

t.test('rows read and statements run', async (t) => {
  t.equal(cost('{ transfers { nodes { id value } } }'), 1, 'a page');
  t.equal(cost('{ transfers(first: 100) { totalCount nodes { id from { id } to { id balance } } } }'), 4, 'a page with both accounts and totalCount');
  t.equal(cost('{ transfers { totalCount } }'), 1, 'a count alone reads no page');
  t.equal(cost('{ transfer(id: "x") { id from { id } } }'), 2, 'single rows');
  t.equal(cost('{ accounts { nodes { sent { nodes { id } } } } }'), 101, 'a connection under 100 parents');
  t.equal(cost('{ accounts { nodes { sent(first: 5) { nodes { id } } } } }'), 6, 'a small nested page');
  t.equal(cost('{ accounts(first: 10) { nodes { sent(first: 5) { totalCount aggregates { count } } } } }'), 3, 'nested statements cost one per batch');
  t.equal(cost('query($n: Int) { accounts(first: $n) { nodes { sent(first: $n) { nodes { id } } } } }', { n: 50 }), 1 + 25, 'variables');
  t.equal(cost('{ a: transfers { ...F } b: transfers { ...F } } fragment F on TransfersConnection { edges { node { from { id } } } }'), 4, 'fragments and aliases');
  t.equal(cost('{ transfers { nodes { id @skip(if: true) from @include(if: false) { id } } } }'), 1, '@skip and @include');
  t.equal(cost('{ __schema { types { name } } }'), 0, 'introspection is free');
  t.equal(cost('{ accounts(first: 10) { nodes { sent(first: 10) { nodes { id } } } } }', {}, 10), 11, 'rows count in units of --query-limit');
});

import { parse } from 'graphql';
import t from 'tap';
import { buildSchema } from './build-schema.ts';
import { complexityError, queryComplexity } from './query-complexity.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

const { schema } = buildSchema({
  project: storedProjectOf(`
  type Account @entity { id: ID!, balance: BigInt!, sent: [Transfer] @derivedFrom(field: "from") }
  type Transfer @entity { id: ID!, value: BigInt!, from: Account!, to: Account! }
`),
  settings: { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 1000 },
  version: 'test',
});
const cost = (query: string, variables: Record<string, unknown> = {}, operationName?: string) =>
  queryComplexity(schema, parse(query), operationName, variables);

t.test('every selected object field costs 1, whatever the rows it reads; scalars are free', async (t) => {
  t.equal(cost('{ transfers { nodes { id value } } }'), 2);
  t.equal(cost('{ transfers(first: 100) { nodes { id } } }'), cost('{ transfers(first: 1) { nodes { id } } }'), 'page size is not counted');
  t.equal(cost('{ transfers(first: 5, orderBy: BLOCK_HEIGHT_DESC) { totalCount nodes { id value from { id balance } } } }'), 3, 'the README query');
  t.equal(
    cost('{ transfers(first: 2) { totalCount nodes { id blockHeight value from { id balance } } pageInfo { hasNextPage endCursor } } }'),
    4,
    'an ordinary page of 12 fields',
  );
  t.equal(cost('{ accounts { nodes { sent { nodes { id } } } } }'), 4, 'nesting adds its fields, it does not multiply');
  t.equal(cost('{ transfer(id: "x") { id from { id } } }'), 2);
  t.equal(cost('{ transfers { aggregates { count } } _metadata { lastProcessedHeight chain } }'), 3);
});

t.test('selections count where written: aliases, repeats, fragments', async (t) => {
  t.equal(cost('{ a: transfers { nodes { id } } b: transfers { nodes { id } } }'), 4, 'aliases are separate fields');
  t.equal(cost('{ transfers { nodes { from { id } from { id } } } }'), 4, 'a repeated field counts twice');
  t.equal(
    cost('{ a: transfers { ...F } b: transfers { ...F } } fragment F on TransfersConnection { nodes { from { id } } }'),
    6,
    'a fragment counts at each spread',
  );
  t.equal(cost('{ transfers { ... on TransfersConnection { pageInfo { hasNextPage } } } }'), 2, 'inline fragments');
  t.equal(
    cost('query($skip: Boolean!) { transfers { nodes { from @skip(if: $skip) { id } to @include(if: false) { id } } } }', { skip: true }),
    2,
    '@skip and @include remove selections',
  );
});

t.test('introspection and __typename are free; the named operation counts', async (t) => {
  t.equal(cost('{ __schema { types { name fields { name } } } }'), 0);
  t.equal(cost('{ __typename transfers { __typename nodes { id } } }'), 2);
  t.equal(cost('query A { transfers { nodes { id } } } query B { accounts { nodes { id balance } sent: aggregates { count } } }', {}, 'B'), 3);
});

t.test('the error names the complexity, the limit and the flag', async (t) => {
  const e = complexityError(12, 10);
  t.match(e.message, /query complexity 12 exceeds the limit 10 \(--query-complexity\)/);
  t.same(e.extensions, { code: 'QUERY_TOO_COMPLEX', complexity: 12, limit: 10 });
});

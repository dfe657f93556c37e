import t from 'tap';
import { storedProjectOf } from '../../../test/support/stored-project.ts';
import { buildSchema } from '../build-schema.ts';
import { sampleQuery } from './playground-feature.ts';

const settings = { aggregate: true, unsafe: false, queryLimit: 100, queryTimeoutMs: 10_000 };
const built = (schema: string) => buildSchema({ project: storedProjectOf(schema), settings, version: 't' });

t.test("the playground's first query names the project's first entity, not the starters' template entity", async (t) => {
  const starter = built(`
    type StarterEntity @entity { id: ID!, blockHeight: BigInt! }
    type Account @entity { id: ID!, balance: BigInt! }
    type Transfer @entity { id: ID!, value: BigInt! }
  `);
  const query = sampleQuery('demo', starter, true);
  t.match(query, /\{\n {2}accounts\(first: 10\) \{\n {4}totalCount\n {4}nodes \{\n {6}id\n {6}balance\n/);
  t.match(query, /# Live changes: subscription \{ accounts \{ id mutation_type _entity \{ id \} \} \}/);
  t.notMatch(query, /starterEntities/);
  t.match(
    sampleQuery('demo', built('type StarterEntity @entity { id: ID!, blockHeight: BigInt! }'), false),
    /starterEntities\(first: 10\)/,
    'unless it is the only one',
  );
  t.match(
    sampleQuery('demo', built('type Transfer @entity { id: ID! }\ntype Account @entity { id: ID! }'), false),
    /transfers\(first: 10\)/,
    'else the first in schema.graphql',
  );
});

import { readFileSync, writeFileSync } from 'node:fs';
import { printSchema } from 'graphql';
import t from 'tap';
import type { NotifyListener } from '../../infra/postgres/notify-listener.ts';
import { buildSchema } from './build-schema.ts';
import { entityTables } from './entity-tables.ts';
import { buildSubgraphSchema } from './subgraph/build-subgraph-schema.ts';
import { subscriptionFields } from './subscriptions/subscription-fields.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

// The schemas printed whole, against the text the code printed before the schema was built from plugins:
// a change of a type, a field, an argument or their order shows here. IDX_WRITE_SCHEMA_FIXTURE=1 rewrites it.
const FIXTURE = new URL('./fixtures/printed-schema.graphql', import.meta.url);

const stored = storedProjectOf(`
  enum Kind { MINT, TRANSFER }
  type Account @entity {
    id: ID!
    balance: BigInt!
    key: Bytes
    sent: [Transfer] @derivedFrom(field: "from")
    profile: Profile @derivedFrom(field: "account")
  }
  type Profile @entity { id: ID!, account: Account!, name: String! }
  type Transfer @entity {
    id: ID!
    from: Account!
    to: Account
    value: BigInt!
    price: BigDecimal
    ratio: Float
    at: Date!
    data: Bytes
    meta: JSON
    kind: Kind
    kinds: [Kind!]
    tags: [String!]!
  }
  type Post @entity @fullText(fields: ["title", "body"], language: "english") { id: ID!, author: Account!, title: String!, body: String }
  type Flat @entity { id: ID!, nodeId: String! }
`);
const project = {
  ...stored,
  changesTables: new Set(['transfers']),
  historicalTables: new Set([...stored.historicalTables].filter((table) => table !== 'flats')),
};

const idle: NotifyListener = { subscribe: () => () => undefined, close: async () => undefined } as unknown as NotifyListener;
const settings = (aggregate: boolean) => ({ aggregate, unsafe: false, queryLimit: 100, queryTimeoutMs: 1000 });

function printed(): string {
  const withAll = buildSchema({ project, settings: settings(true), version: 'test', extensions: [subscriptionFields(idle)] });
  const plain = buildSchema({ project, settings: settings(false), version: 'test' });
  return [
    '# SubQuery dialect, --aggregate, --subscription',
    printSchema(withAll.schema),
    '# SubQuery dialect, --no-aggregate',
    printSchema(plain.schema),
    '# The Graph dialect',
    printSchema(buildSubgraphSchema({ project, tables: entityTables(project) })),
    '',
  ].join('\n');
}

t.test('the printed schemas are those of the fixture', async (t) => {
  const text = printed();
  if (process.env.IDX_WRITE_SCHEMA_FIXTURE === '1') writeFileSync(FIXTURE, text);
  t.equal(text, readFileSync(FIXTURE, 'utf8'));
});

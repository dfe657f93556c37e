import { isObjectType } from 'graphql';
import t from 'tap';
import { buildSchema } from './build-schema.ts';
import { entityTables } from './entity-tables.ts';
import { nodeIdOf, parseNodeId } from './node-ids.ts';
import { storedProjectOf } from '../../test/support/stored-project.ts';

const project = storedProjectOf(`
  type StarterEntity @entity { id: ID!, blockHeight: BigInt! }
  type Sheep @entity { id: ID! }
  type Legacy @entity { id: ID!, nodeId: String! }
`);
const tables = entityTables(project);

t.test("PostGraphile's node ids: base64 of [pluralized table, id]", async (t) => {
  const starter = tables.get('StarterEntity')!;
  const id = nodeIdOf(starter, '0xab');
  t.equal(Buffer.from(id, 'base64').toString(), '["starter_entities","0xab"]');
  t.same(parseNodeId(id), { alias: 'starter_entities', id: '0xab' });
  t.equal(Buffer.from(nodeIdOf(tables.get('Sheep')!, 'dolly'), 'base64').toString(), '["sheep","dolly"]', 'a table whose plural is itself');
});

t.test('a string that is not a node id is none, as PostGraphile takes it (node and <entity>ByNodeId answer null)', async (t) => {
  const b64 = (text: string) => Buffer.from(text).toString('base64');
  for (const bad of [
    '',
    'not base64 at all',
    b64('["x"]'),
    b64('["x",1]'),
    b64('{}'),
    b64('["starter_entities","a\u0000b"]'),
    'abc\u0000',
    b64('["starter_entities",["0xab"]]'),
  ])
    t.equal(parseNodeId(bad), undefined, JSON.stringify(bad));
  // JSON.parse took 2 s over the megabyte of `[` one request can carry
  const started = performance.now();
  for (const deep of [b64('['.repeat(700_000)), b64(`["starter_entities",${'['.repeat(700_000)}`)]) t.equal(parseNodeId(deep), undefined);
  t.ok(performance.now() - started < 1000, `two deeply nested node ids read in ${(performance.now() - started).toFixed(0)} ms`);
});

t.test('an entity with its own nodeId field keeps it and is no Node', async (t) => {
  const { schema } = buildSchema({ project, settings: { aggregate: false, unsafe: false, queryLimit: 100, queryTimeoutMs: 1000 }, version: 'test' });
  const legacy = schema.getType('Legacy');
  const starter = schema.getType('StarterEntity');
  t.ok(isObjectType(legacy) && isObjectType(starter));
  if (!isObjectType(legacy) || !isObjectType(starter)) return;
  t.equal(String(legacy.getFields().nodeId!.type), 'String!', "the entity's own field");
  t.same(legacy.getInterfaces(), []);
  t.same(starter.getInterfaces().map(String), ['Node']);
  t.equal(String(starter.getFields().nodeId!.type), 'ID!');
  const query = schema.getQueryType()!.getFields();
  t.ok(query.starterEntityByNodeId && query.sheepByNodeId && query.node && query.query);
  t.notOk(query.legacyByNodeId);
});

import t from 'tap';
import { parseSchema } from '../entities/parse-schema.ts';
import { diffSchemas } from '../entities/schema-diff.ts';
import { classifyRedeploy, type RedeployInput } from './classify-redeploy.ts';
import type { DeploymentRecord, HandlerBinding } from './deployment-record.ts';

const base = `
enum Kind { A B }
type Account @entity { id: ID!, balance: BigInt! }
type Transfer @entity { id: ID!, from: Account!, value: BigInt! @index, memo: String, kind: Kind }
`;
const binding = (handler: string, extra: Partial<HandlerBinding> = {}): HandlerBinding => ({
  source: 'dataSources[0] (ethereum/Runtime)',
  handler,
  key: `ds0:${handler}`,
  startBlock: 100,
  code: `code of ${handler}`,
  ...extra,
});
const record = (...handlers: HandlerBinding[]): DeploymentRecord => ({ bundle: 'b', handlers });
const before = record(binding('handleTransfer'));

/** the verdict on `schema` (base changed) and `after` (the handlers now), indexed to block 500 */
function verdict(schema: string, after: DeploymentRecord = before, more: Partial<RedeployInput> = {}) {
  return classifyRedeploy({
    schemaChanges: diffSchemas(parseSchema(base), parseSchema(schema)),
    before,
    after,
    indexedHeight: 500,
    dynamic: [],
    ...more,
  });
}
const rules = (v: ReturnType<typeof verdict>) => v.additive.map((a) => `${a.rule}: ${a.what}`);

t.test('nothing changed: nothing to apply or refuse', async (t) => {
  t.same(verdict(base), { additive: [], reindex: [] });
});

t.test('new-entity', async (t) => {
  const v = verdict(`${base}\ntype Note @entity { id: ID!, text: String }`);
  t.same(rules(v), ['new-entity: added entity Note (table notes)']);
  t.same(v.reindex, []);
});

t.test('new-nullable-field: only when the last start recorded the handlers (else nothing shows they do not set it)', async (t) => {
  const schema = base.replace('memo: String', 'memo: String, note: String');
  t.same(rules(verdict(schema)), ['new-nullable-field: Transfer: added field note: String']);
  const unknown = verdict(schema, before, { before: undefined });
  t.same(unknown.additive, []);
  t.match(unknown.reindex, [{ what: 'Transfer: added field note: String', why: /keeps no record of the handlers/ }]);
});

t.test('a required new field needs a reindex', async (t) => {
  t.match(verdict(base.replace('memo: String', 'memo: String, note: String!')).reindex, [{ what: /added field note: String!/, why: /no value for it/ }]);
});

t.test('index-only: an index or @fullText added, changed or removed', async (t) => {
  const v = verdict(
    base
      .replace('value: BigInt! @index', 'value: BigInt!')
      .replace('memo: String', 'memo: String @index')
      .replace('type Transfer @entity', 'type Transfer @entity @fullText(fields: ["memo"])'),
  );
  t.same(
    v.additive.map((a) => a.rule),
    ['index-only', 'index-only', 'index-only'],
  );
  t.same(v.reindex, []);
});

t.test('new-enum and new-enum-values', async (t) => {
  const v = verdict(base.replace('enum Kind { A B }', 'enum Kind { A B C }\nenum Level { LOW }').replace('memo: String', 'memo: String, level: Level'));
  t.same(rules(v), ['new-enum-values: enum Kind: added C', 'new-enum: added enum Level (LOW)', 'new-nullable-field: Transfer: added field level: Level']);
});

t.test('model-only: a @derivedFrom field', async (t) => {
  t.same(rules(verdict(base.replace('balance: BigInt!', 'balance: BigInt!, sent: [Transfer] @derivedFrom(field: "from")'))), [
    'model-only: Account: added field sent: [Transfer]',
  ]);
});

t.test('a field type change, a nullability change, a removed field or entity, a removed enum value: each needs a reindex, with why', async (t) => {
  const v = verdict(
    base
      .replace('balance: BigInt!', 'balance: String!')
      .replace('value: BigInt! @index', 'value: BigInt @index')
      .replace(', memo: String', '')
      .replace('enum Kind { A B }', 'enum Kind { A }'),
  );
  t.same(v.additive, []);
  t.match(v.reindex, [
    { what: 'enum Kind: removed B', why: /removed values/ },
    { what: /balance changed from BigInt! to String!/, why: /old type/ },
    { what: /removed field memo/, why: /dropped/ },
    { what: /value changed from BigInt! to BigInt/, why: /old type or nullability/ },
  ]);
});

t.test("a changed handler's code needs a reindex once it ran, naming the handler and the blocks", async (t) => {
  const v = verdict(base, record(binding('handleTransfer', { code: 'new code' })));
  t.same(v.additive, []);
  t.same(v.reindex, [
    {
      what: 'handler handleTransfer of dataSources[0] (ethereum/Runtime): code changed',
      why: 'the rows it wrote for blocks 100–500 came from the old code',
      handler: 'handleTransfer',
      from: 100,
    },
  ]);
});

t.test('handler-not-run: a changed handler whose data source starts above the indexed height, or whose template made no data source yet', async (t) => {
  const ahead = binding('handleLater', { startBlock: 900, key: 'ds1' });
  const template = binding('handlePool', { key: 'tpl', startBlock: undefined, template: 'Pool' });
  const changed = record(binding('handleTransfer'), { ...ahead, code: 'new' }, { ...template, code: 'new' });
  const v = verdict(base, changed, { before: record(binding('handleTransfer'), ahead, template) });
  t.same(rules(v), [
    'handler-not-run: handler handleLater of dataSources[0] (ethereum/Runtime): code changed',
    'handler-not-run: handler handlePool of dataSources[0] (ethereum/Runtime): code changed',
  ]);
  const made = verdict(base, changed, { before: record(binding('handleTransfer'), ahead, template), dynamic: [{ templateName: 'Pool', startBlock: 300 }] });
  t.match(made.reindex, [{ handler: 'handlePool', why: /blocks 300–500/ }]);
});

t.test('handler-ahead: a new handler whose data source starts above the indexed height; at or below it, a reindex', async (t) => {
  t.same(rules(verdict(base, record(binding('handleTransfer'), binding('handleApproval', { startBlock: 501, key: 'n' })))), [
    'handler-ahead: added handler handleApproval of dataSources[0] (ethereum/Runtime) (from block 501)',
  ]);
  t.match(verdict(base, record(binding('handleTransfer'), binding('handleApproval', { startBlock: 500, key: 'n' }))).reindex, [
    { handler: 'handleApproval', why: 'blocks 500–500 were indexed without it' },
  ]);
});

t.test('a data source changed (another address, filter or start) is its handlers removed and added', async (t) => {
  const v = verdict(base, record(binding('handleTransfer', { key: 'other address' })));
  t.match(v.reindex, [
    { what: /added handler handleTransfer/, why: /indexed without it/ },
    { what: /removed handler handleTransfer/, why: /stay/ },
  ]);
});

t.test('removed-before-run: a removed handler that never ran', async (t) => {
  const v = verdict(base, record(binding('handleTransfer')), {
    before: record(binding('handleTransfer'), binding('handleLater', { startBlock: 900, key: 'l' })),
  });
  t.same(rules(v), ['removed-before-run: removed handler handleLater of dataSources[0] (ethereum/Runtime)']);
});

t.test('nothing indexed yet: no handler ran; without a record or a current deployment handlers are not compared', async (t) => {
  t.same(verdict(base, record(binding('handleTransfer', { code: 'new' })), { indexedHeight: undefined }).reindex, []);
  t.same(verdict(base, record(binding('handleTransfer', { code: 'new' })), { before: undefined }).reindex, []);
  t.same(classifyRedeploy({ schemaChanges: [], before, indexedHeight: 500, dynamic: [] }), { additive: [], reindex: [] });
});

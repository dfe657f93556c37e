import t from 'tap';
import type { DeploymentRecord, HandlerBinding } from './deployment-record.ts';
import type { HandlerAccessRecord } from './handler-access.ts';
import { checkReuseRun, planReuse, type ReuseInput } from './plan-reuse.ts';
import type { EntityModel, SchemaModel } from '../entities/entity-model.ts';

const binding = (handler: string, code: string, extra: Partial<HandlerBinding> = {}): HandlerBinding => ({
  source: 'dataSources[0]',
  handler,
  key: `{"handler":"${handler}"}`,
  code,
  ...extra,
});
const record = (...handlers: HandlerBinding[]): DeploymentRecord => ({ bundle: 'b', handlers });
const entity = (name: string, fields = ['id']) =>
  ({
    name,
    table: name.toLowerCase(),
    fields: fields.map((f) => ({ name: f, type: 'String', nullable: false, list: false, itemNullable: false })),
    indexes: [],
  }) as unknown as EntityModel;
const model = (...names: string[]) => ({ layout: 2, entities: names.map((n) => entity(n)), enums: [], jsonTypes: [] }) as unknown as SchemaModel;
const access = (handlers: HandlerAccessRecord['handlers'], complete = true): HandlerAccessRecord => ({ complete, handlers });

const erc20: ReuseInput = {
  before: record(binding('handleTransfer', 't1'), binding('handleBlock', 'b1')),
  after: record(binding('handleTransfer', 't1'), binding('handleBlock', 'b2')),
  access: access({ handleTransfer: { reads: ['Account'], writes: ['Account', 'Transfer'] }, handleBlock: { reads: [], writes: ['StarterEntity'] } }),
  beforeModel: model('Account', 'Transfer', 'StarterEntity'),
  afterModel: model('Account', 'Transfer', 'StarterEntity'),
};

t.test('the changed handler runs; the types only unchanged ones write are copied', async (t) => {
  t.same(planReuse(erc20), {
    ok: true,
    plan: { run: ['handleBlock'], reused: ['handleTransfer'], copy: ['Account', 'Transfer'], because: { handleBlock: 'its code or what calls it changed' } },
  });
});

t.test('an unchanged handler that reads what a changed one writes runs too, to a fixed point', async (t) => {
  const verdict = planReuse({
    ...erc20,
    before: record(binding('a', '1'), binding('b', '1'), binding('c', '1'), binding('d', '1')),
    after: record(binding('a', '2'), binding('b', '1'), binding('c', '1'), binding('d', '1')),
    access: access({
      a: { reads: [], writes: ['A'] },
      b: { reads: ['A'], writes: ['B'] },
      c: { reads: ['B'], writes: ['C'] },
      d: { reads: [], writes: ['D'] },
    }),
    beforeModel: model('A', 'B', 'C', 'D'),
    afterModel: model('A', 'B', 'C', 'D'),
  });
  t.match(verdict, { ok: true, plan: { run: ['a', 'b', 'c'], reused: ['d'], copy: ['D'] } });
  t.match(verdict, { plan: { because: { b: 'it reads A, which a writes', c: 'it reads B, which b writes' } } });
});

t.test('refused, naming why', async (t) => {
  const refusal = (input: Partial<ReuseInput>) => {
    const v = planReuse({ ...erc20, ...input });
    return v.ok ? [] : v.problems;
  };
  t.match(refusal({ access: undefined }), [/no record of which entity types each handler reads and writes/]);
  t.match(refusal({ before: undefined }), [/no record of the handlers it was indexed with/]);
  t.match(refusal({ access: { ...erc20.access!, complete: false } }), [/does not cover all of its rows/]);
  t.match(
    refusal({
      access: access({ handleTransfer: { reads: [], writes: ['Account', 'Transfer'] }, handleBlock: { reads: [], writes: ['StarterEntity', 'Account'] } }),
    }),
    ['handleBlock (changed) writes Account, which handleTransfer (unchanged) writes too'],
  );
  t.match(refusal({ access: access({ handleTransfer: { reads: [], writes: ['Account'] }, handleBlock: { reads: ['Account'], writes: ['StarterEntity'] } }) }), [
    'handleBlock (changed) reads Account, which handleTransfer (unchanged) writes',
  ]);
  t.match(refusal({ after: record(binding('handleTransfer', 't2'), binding('handleBlock', 'b2')) }), [/every handler must run again/]);
  t.match(refusal({ after: record(binding('handleTransfer', 't1'), binding('handleBlock', 'b2'), binding('handlePool', 'p', { template: 'Pool' })) }), [
    /templates \(template Pool\)/,
  ]);
  t.match(
    refusal({
      afterModel: { ...model('Transfer', 'StarterEntity'), entities: [entity('Account', ['id', 'balance']), entity('Transfer'), entity('StarterEntity')] },
    }),
    ['Account, whose rows would be copied, is defined differently in the new schema.graphql'],
  );
});

t.test('a moved start block or a removed handler counts as a change; a removed one does not run', async (t) => {
  const moved = planReuse({ ...erc20, after: record(binding('handleTransfer', 't1'), binding('handleBlock', 'b1', { key: '{"startBlock":9}' })) });
  t.match(moved, { ok: true, plan: { run: ['handleBlock'] } });
  const removed = planReuse({ ...erc20, after: record(binding('handleTransfer', 't1')) });
  t.match(removed, { ok: true, plan: { run: [], reused: ['handleTransfer'], copy: ['Account', 'Transfer'], because: { handleBlock: 'removed' } } });
});

t.test('the run checked again: what the new code read and wrote as it ran', async (t) => {
  const plan = { run: ['handleBlock'], reused: ['handleTransfer'] };
  const reused = access({ handleTransfer: { reads: ['Account'], writes: ['Account', 'Transfer'] } });
  t.same(checkReuseRun(plan, reused, access({ handleBlock: { reads: [], writes: ['StarterEntity'] } })), []);
  t.same(checkReuseRun(plan, reused, access({ handleBlock: { reads: ['Transfer'], writes: ['StarterEntity'] } })), [
    'handleBlock (changed) reads Transfer, which handleTransfer (unchanged) writes',
  ]);
  t.same(checkReuseRun(plan, reused, access({ handleBlock: { reads: [], writes: ['StarterEntity', 'Account'] } })), [
    'handleBlock (changed) writes Account, which handleTransfer (unchanged) writes too',
    'handleTransfer (reused) reads Account, which handleBlock now writes',
  ]);
});

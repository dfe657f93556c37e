import t from 'tap';
import { compileFilter } from '../compile-filter.ts';
import { entityTables } from '../entity-tables.ts';
import { SqlParams } from '../../../infra/postgres/read/sql-params.ts';
import { translateWhere } from './translate-where.ts';
import { wherePlans, type WhereField } from './where-plan.ts';
import { storedProjectOf } from '../../../test/support/stored-project.ts';

const project = storedProjectOf(`
  enum Kind { MINT, TRANSFER }
  type Account @entity {
    id: ID!
    balance: BigInt!
    tags: [String!]
    meta: JSON
    sent: [Transfer!]! @derivedFrom(field: "from")
    profile: Profile @derivedFrom(field: "owner")
  }
  type Profile @entity { id: ID!, owner: Account!, name: String }
  type Transfer @entity {
    id: ID!
    from: Account!
    to: Account
    value: BigInt!
    price: BigDecimal
    count: Int
    ratio: Float
    big: Boolean
    at: Date
    memo: String
    data: Bytes
    kind: Kind
    kinds: [Kind!]
    amounts: [BigInt!]
    hashes: [Bytes!]
    days: [Date!]
  }
`);
const tables = entityTables(project);
const plans = wherePlans(tables);
const tr = (entity: string, where: Record<string, unknown>) => translateWhere(plans, entity, where);
const fieldsOf = (entity: string) => plans.get(entity)!.fields;

t.test('operators map onto the SubQuery dialect', async (t) => {
  t.same(tr('Transfer', { value_gt: '5' }), { value: { greaterThan: '5' } });
  t.same(tr('Transfer', { value: '5' }), { value: { equalTo: '5' } });
  const ops: [string, string][] = [
    ['', 'equalTo'],
    ['_not', 'notEqualTo'],
    ['_gt', 'greaterThan'],
    ['_lt', 'lessThan'],
    ['_gte', 'greaterThanOrEqualTo'],
    ['_lte', 'lessThanOrEqualTo'],
    ['_contains', 'includes'],
    ['_contains_nocase', 'includesInsensitive'],
    ['_not_contains', 'notIncludes'],
    ['_not_contains_nocase', 'notIncludesInsensitive'],
    ['_starts_with', 'startsWith'],
    ['_starts_with_nocase', 'startsWithInsensitive'],
    ['_not_starts_with', 'notStartsWith'],
    ['_not_starts_with_nocase', 'notStartsWithInsensitive'],
    ['_ends_with', 'endsWith'],
    ['_ends_with_nocase', 'endsWithInsensitive'],
    ['_not_ends_with', 'notEndsWith'],
    ['_not_ends_with_nocase', 'notEndsWithInsensitive'],
  ];
  for (const [suffix, op] of ops) t.same(tr('Transfer', { [`memo${suffix}`]: 'a' }), { memo: { [op]: 'a' } }, `memo${suffix}`);
  t.same(tr('Transfer', { count_in: [1, 2] }), { count: { in: [1, 2] } });
  t.same(tr('Transfer', { count_not_in: [1] }), { count: { notIn: [1] } });
});

t.test('relations: the id with String operators, and the related entity by `<field>_`', async (t) => {
  t.same(tr('Transfer', { from: '0xab' }), { fromId: { equalTo: '0xab' } });
  t.same(tr('Transfer', { from_in: ['0xab', '0xcd'] }), { fromId: { in: ['0xab', '0xcd'] } });
  t.same(tr('Transfer', { to_starts_with_nocase: '0xAB' }), { toId: { startsWithInsensitive: '0xAB' } });
  t.same(tr('Transfer', { from_: { balance_gt: '0' } }), { from: { balance: { greaterThan: '0' } } });
  t.same(tr('Transfer', { from_: { sent_: { value_lt: '3' } } }), { from: { sent: { some: { value: { lessThan: '3' } } } } }, 'nested two levels');
  t.same(tr('Account', { sent_: { value_gt: '1' } }), { sent: { some: { value: { greaterThan: '1' } } } }, '@derivedFrom list: some related row');
  t.same(tr('Account', { profile_: { name: 'x' } }), { profile: { name: { equalTo: 'x' } } }, '@derivedFrom single: the related row');
});

t.test('null asks for missing values, only with equality', async (t) => {
  t.same(tr('Transfer', { memo: null }), { memo: { isNull: true } });
  t.same(tr('Transfer', { memo_not: null }), { memo: { isNull: false } });
  t.same(tr('Transfer', { to: null }), { toId: { isNull: true } });
  t.throws(() => tr('Transfer', { memo_gt: null }), {
    message: /memo_gt: null is not a value.*memo: null or memo_not: null/,
    extensions: { code: 'BAD_USER_INPUT' },
  });
  t.throws(() => tr('Transfer', { from_: null }), { message: /from_: null is not a filter/, extensions: { code: 'BAD_USER_INPUT' } });
});

t.test('lists compare whole; Bytes contain by their hex', async (t) => {
  t.same(tr('Account', { tags: ['a', 'b'] }), { tags: { equalTo: ['a', 'b'] } });
  t.same(tr('Account', { tags_not: ['a'] }), { tags: { notEqualTo: ['a'] } });
  t.same(tr('Account', { tags_contains: ['a'] }), { tags: { contains: ['a'] } });
  t.same(tr('Account', { tags_not_contains: ['a'] }), { not: { tags: { contains: ['a'] } } });
  t.same(tr('Transfer', { data_contains: '0xabcd' }), { data: { includes: 'abcd' } });
  t.same(tr('Transfer', { data_not_contains: '0xab' }), { data: { notIncludes: 'ab' } });
  t.same(tr('Transfer', { data: '0xab' }), { data: { equalTo: '0xab' } });
  t.same(
    tr('Transfer', { hashes_contains: ['0xABcd'], days: ['2024-05-01T14:00:00+02:00'] }),
    { hashes: { contains: ['0xabcd'] }, days: { equalTo: ['2024-05-01T12:00:00.000Z'] } },
    'list items as the jsonb array holds them: bytes in lowercase, dates in UTC',
  );
});

t.test('and, or, and several fields', async (t) => {
  t.same(tr('Transfer', { value_gt: '1', memo: 'x' }), { value: { greaterThan: '1' }, memo: { equalTo: 'x' } }, 'different fields merge');
  t.same(tr('Transfer', { value_gt: '1', value_lt: '9' }), { and: [{ value: { greaterThan: '1' } }, { value: { lessThan: '9' } }] }, 'one field twice: and');
  t.same(tr('Transfer', { or: [{ value_gt: '9' }, { memo: 'x' }] }), { or: [{ value: { greaterThan: '9' } }, { memo: { equalTo: 'x' } }] });
  t.same(tr('Transfer', { and: [{ from_: { id: 'a' } }], value: '1' }), { and: [{ from: { id: { equalTo: 'a' } } }], value: { equalTo: '1' } });
  t.same(tr('Transfer', { or: [{ and: [{ count_gt: 1 }, { count_lt: 5 }] }] }), {
    or: [{ and: [{ count: { greaterThan: 1 } }, { count: { lessThan: 5 } }] }],
  });
  t.throws(() => tr('Transfer', { or: [{ memo: 'x' }], value: '1' }), {
    message: /cannot mix column filters with 'or' operator at the same level. Found column filter\(s\) 'value'/,
    extensions: { code: 'BAD_USER_INPUT' },
  });
  t.throws(() => tr('Transfer', { or: [null] }), { message: /or\[0\]: each item must be a filter object/, extensions: { code: 'BAD_USER_INPUT' } });
  t.same(tr('Transfer', {}), {}, 'an empty where: every row');
  t.throws(() => tr('Transfer', { nope: 1 }), { message: /Transfer_filter: unknown field nope/ });
});

t.test("each value type gets graph-node's operators", async (t) => {
  const names = (entity: string, field: string) =>
    [...fieldsOf(entity).values()].filter((f) => f.name === field || f.name.startsWith(`${field}_`)).map((f) => f.name.slice(field.length));
  const compare = ['', '_not', '_gt', '_lt', '_gte', '_lte', '_in', '_not_in'];
  t.same(names('Transfer', 'value'), compare, 'BigInt');
  t.same(names('Transfer', 'price'), compare, 'BigDecimal');
  t.same(names('Transfer', 'count'), compare, 'Int');
  t.same(names('Transfer', 'ratio'), compare, 'Float');
  t.same(names('Transfer', 'at'), compare, 'Date (an ISO string compared as a time)');
  t.same(names('Transfer', 'id'), compare, 'ID');
  t.same(names('Transfer', 'big'), ['', '_not', '_in', '_not_in'], 'Boolean');
  t.same(names('Transfer', 'kind'), ['', '_not', '_in', '_not_in'], 'enum');
  t.same(names('Transfer', 'data'), [...compare, '_contains', '_not_contains'], 'Bytes');
  t.equal(names('Transfer', 'memo').length, 20, 'String: comparisons and the twelve text operators');
  t.same(names('Transfer', 'from'), [...names('Transfer', 'memo'), '_'], 'a relation: String operators on the id, and the child filter');
  t.same(names('Account', 'meta'), ['', '_not'], 'JSON');
  t.same(names('Account', 'tags'), ['', '_not', '_contains', '_not_contains'], 'a list');
  t.same(names('Account', 'sent'), ['_'], 'a @derivedFrom list: only the child filter');
  const type = (entity: string, name: string) => fieldsOf(entity).get(name)!.type;
  t.equal(type('Transfer', 'value_in'), '[BigInt!]');
  t.equal(type('Transfer', 'kind'), 'Kind');
  t.equal(type('Transfer', 'kinds_contains'), '[Kind!]');
  t.equal(type('Account', 'tags'), '[String!]');
  t.equal(type('Transfer', 'from_'), 'Account_filter');
  t.equal(type('Transfer', 'at_gt'), 'String');
  t.equal(type('Transfer', 'data_contains'), 'Bytes');
});

t.test('every filter field compiles to SQL (each operator exists for its column)', async (t) => {
  const sample = (f: WhereField): unknown => {
    if (f.target.kind === 'child') return { id: 'x' };
    const many = f.type.startsWith('[');
    const base = f.type.replace(/[[\]!]/g, '');
    const one = { BigInt: '1', BigDecimal: '1.5', Int: 1, Float: 1.5, Boolean: true, Bytes: '0xab', Kind: 'MINT', JSON: { a: 1 } }[base] ?? 'a';
    const value = base === 'String' && (f.name.startsWith('at') || f.name.startsWith('days')) ? '2024-01-01T00:00:00Z' : one;
    return many ? [value] : value;
  };
  let n = 0;
  for (const [entity, plan] of plans) {
    for (const f of plan.fields.values()) {
      const filter = tr(entity, { [f.name]: sample(f) });
      const params = new SqlParams();
      const sql = compileFilter(tables.get(entity)!, 't', filter, { tables, height: undefined, params });
      if (typeof sql !== 'string' || sql === 'true') t.fail(`${entity}.${f.name} compiles to nothing`);
      n++;
    }
  }
  t.ok(n > 150, `${n} filter fields compiled`);
});

import t from 'tap';
import { IdxError } from '../errors.ts';
import type { EntityData, EntityStore } from './entity-store.ts';
import { parseSchema } from './parse-schema.ts';
import { createStoreCache } from './store-cache.ts';
import { createEntityValidator } from './validate-entity.ts';

const model = parseSchema(/* GraphQL */ `
  enum Kind {
    MINT
    BURN
  }
  type Account @entity {
    id: ID!
    balance: BigInt!
    count: Int
    ratio: Float
    price: BigDecimal
    active: Boolean
    seen: Date
    code: Bytes
    name: String @index
    meta: JSON
    kind: Kind
    tags: [String!]
    parent: Account
  }
  type Pair @entity @compositeIndexes(fields: [["a", "b"]]) {
    id: ID!
    a: String!
    b: String!
  }
  type Blob @entity {
    id: ID!
    data: Bytes @index
  }
`);
const validate = createEntityValidator(model);
const good: EntityData = {
  id: 'a',
  balance: 5n,
  count: 1,
  ratio: 0.5,
  price: '1.25',
  active: true,
  seen: new Date(0),
  code: '0x01',
  name: 'n',
  meta: { x: [1] },
  kind: 'MINT',
  tags: ['t'],
  parentId: 'b',
};

const problem = (entity: string, id: string, data: EntityData): string => {
  try {
    validate(entity, id, data);
  } catch (err) {
    t.equal((err as IdxError).code, entity === 'Nope' ? 'STORE_UNKNOWN_ENTITY' : 'STORE_INVALID_VALUE');
    return (err as Error).message;
  }
  return 'valid';
};

t.test('values the database would refuse fail at the write, naming entity, id, field and problem', async (t) => {
  t.equal(problem('Account', 'a', good), 'valid');
  t.equal(problem('Account', 'a', { ...good, count: null, ratio: undefined }), 'valid', 'nullable fields may be null or absent');
  t.equal(problem('Account', 'a', { ...good, name: 'nul\u0000byte' }), 'Account "a": name: holds a NUL byte (\\u0000), which PostgreSQL text cannot store');
  t.equal(
    problem('Account', 'a', { ...good, name: 'x\ud800' }),
    'Account "a": name: holds a lone surrogate (half of a UTF-16 pair), which PostgreSQL text would store as U+FFFD',
  );
  t.equal(
    problem('Account', 'x\udc00', good),
    'Account "x\\udc00": id: holds a lone surrogate (half of a UTF-16 pair), which PostgreSQL text would store as U+FFFD',
  );
  t.equal(problem('Account', 'a', { ...good, name: 'ok 😀' }), 'valid', 'a surrogate pair is fine');
  t.equal(problem('Account', 'a', { ...good, count: '12' }), 'Account "a": count: expected a 32-bit integer, got "12"');
  t.equal(problem('Account', 'a', { ...good, count: 2 ** 31 }), 'Account "a": count: expected a 32-bit integer, got 2147483648');
  t.equal(problem('Account', 'a', { ...good, balance: 'lots' }), 'Account "a": balance: expected a bigint, got "lots"');
  t.equal(problem('Account', 'a', { ...good, balance: undefined }), 'Account "a": balance is required (non-null in schema.graphql), got undefined');
  t.equal(problem('Account', 'a', { ...good, seen: new Date(NaN) }), 'Account "a": seen: expected a valid Date, got an invalid one (new Date(NaN))');
  t.equal(problem('Account', 'a', { ...good, active: 'yes' }), 'Account "a": active: expected a boolean, got "yes"');
  t.equal(problem('Account', 'a', { ...good, code: 'zz' }), 'Account "a": code: expected bytes (a Uint8Array or a 0x-hex string of whole bytes), got "zz"');
  t.equal(
    problem('Account', 'a', { ...good, code: '0xabc' }),
    'Account "a": code: expected bytes (a Uint8Array or a 0x-hex string of whole bytes), got "0xabc"',
    'a bytea column holds no half byte',
  );
  t.equal(problem('Account', 'a', { ...good, kind: 'SWAP' }), 'Account "a": kind: expected one of "MINT", "BURN" (enum Kind), got "SWAP"');
  t.equal(problem('Account', 'a', { ...good, tags: ['ok', null] }), 'Account "a": tags[1]: the list\'s items may not be null');
  t.equal(
    problem('Account', 'a', { ...good, tags: ['ok', 'b\u0000'] }),
    'Account "a": tags[1]: holds a NUL byte (\\u0000), which PostgreSQL text cannot store',
  );
  t.equal(
    problem('Account', 'a', { ...good, meta: { deep: { 'k\u0000': 1 } } }),
    'Account "a": meta: "deep": "k\\u0000": holds a NUL byte (\\u0000), which PostgreSQL text cannot store',
  );
  t.equal(problem('Account', 'a', { ...good, parentId: 7 }), 'Account "a": parentId: expected the id of a Account (a string), got 7');
  t.equal(problem('Nope', 'a', {}), 'no entity named "Nope" in schema.graphql (it has Account, Pair, Blob)');
});

t.test('a BigInt holds at most 131,072 digits, as numeric does before the point, sign and leading zeros aside', async (t) => {
  // PostgreSQL 15: repeat('9', 131072)::numeric is stored, ('1' || repeat('0', 131072))::numeric overflows
  const most = 10n ** 131072n - 1n;
  const tooMany = 'Account "a": balance: has more than 131072 digits';
  t.equal(problem('Account', 'a', { ...good, balance: most }), 'valid');
  t.equal(problem('Account', 'a', { ...good, balance: -most }), 'valid');
  t.equal(problem('Account', 'a', { ...good, balance: most + 1n }), tooMany, '131,073 digits');
  t.equal(problem('Account', 'a', { ...good, balance: -most - 1n }), tooMany, '131,073 digits and a sign');
  t.equal(problem('Account', 'a', { ...good, balance: 2n ** 256n - 1n }), 'valid', 'a uint256');
  t.equal(problem('Account', 'a', { ...good, balance: -(2n ** 434999n) }), 'valid', 'a large value, far below the limit');
  // below 2^435,411 no decimal text is made; from it up to the limit it is, and counted
  t.equal(problem('Account', 'a', { ...good, balance: 2n ** 435411n - 1n }), 'valid', 'just below the bound needing no count');
  t.equal(problem('Account', 'a', { ...good, balance: -(2n ** 435411n) }), 'valid', 'from the bound on, counted: still 131,072 digits');
  t.equal(problem('Account', 'a', { ...good, balance: '9'.repeat(131072) }), 'valid', 'as text');
  t.equal(problem('Account', 'a', { ...good, balance: `+${'9'.repeat(131072)}` }), 'valid', 'as text with a sign');
  t.equal(problem('Account', 'a', { ...good, balance: `000${'9'.repeat(131072)}` }), 'valid', 'as text with leading zeros');
  t.equal(problem('Account', 'a', { ...good, balance: '0'.repeat(131080) }), 'valid', 'zero written long');
  t.equal(problem('Account', 'a', { ...good, balance: `1${'0'.repeat(131072)}` }), tooMany, 'as text');
  t.equal(problem('Account', 'a', { ...good, balance: `-1${'0'.repeat(131072)}` }), tooMany, 'as text with a sign');
});

t.test('indexed text too long for a btree entry is refused, alone or in a composite index', async (t) => {
  t.equal(problem('Account', 'a', { ...good, name: 'x'.repeat(2600) }), 'valid');
  t.match(problem('Account', 'a', { ...good, name: 'x'.repeat(2601) }), /^Account "a": name is 2601 bytes, above the 2600 bytes an indexed value may hold/);
  t.equal(problem('Account', 'a', { ...good, ratio: 1, meta: 'x'.repeat(10_000) }), 'valid', 'unindexed text may be long');
  t.match(problem('Account', 'é'.repeat(1301), good), /id is 2602 bytes/, 'counted in UTF-8 bytes');
  t.equal(problem('Account', 'é'.repeat(1300), good), 'valid', '2600 bytes in 1300 characters');
  t.equal(problem('Account', 'x'.repeat(866), { ...good, name: '€'.repeat(866) }), 'valid', 'each index counted alone: 866 characters of 3 bytes fit');
  t.match(problem('Account', 'a', { ...good, name: `${'😀'.repeat(650)}x` }), /name is 2601 bytes/, 'a surrogate pair is 4 bytes');
  t.match(problem('Pair', 'p', { a: 'x'.repeat(1500), b: 'y'.repeat(1500) }), /^Pair "p": a \+ b are 3000 bytes/);
  t.equal(problem('Blob', 'b', { data: `0x${'ab'.repeat(2600)}` }), 'valid', 'Bytes count as bytes (bytea), not as their hex text');
  t.match(problem('Blob', 'b', { data: new Uint8Array(2601) }), /^Blob "b": data is 2601 bytes/);
});

t.test('the store cache refuses a bad write when it is made, keeping earlier writes; offset is checked', async (t) => {
  const flushed: unknown[] = [];
  const store = { flush: async (b: { operations: unknown[] }) => void flushed.push(...b.operations), getByField: async () => [] } as unknown as EntityStore;
  const cache = createStoreCache(store, { queryLimit: 100, getCacheSize: 0, model });
  cache.set('Account', 'a', good, 1);
  t.throws(() => cache.set('Account', 'b', { ...good, count: 'x' }, 2), {
    code: 'STORE_INVALID_VALUE',
    message: 'Account "b": count: expected a 32-bit integer, got "x"',
  });
  t.same(
    cache.takeOperations().operations.map((o) => [o.id, o.height]),
    [['a', 1]],
    'only the good write is pending',
  );
  await t.rejects(cache.getByField('Account', 'name', 'n', { offset: 1e300 }), {
    code: 'STORE_INVALID_QUERY',
    message: 'offset must be a non-negative whole number, got 1e+300',
  });
  await t.rejects(cache.getByField('Account', 'name', 'n', { offset: -1 }), { message: /offset must be a non-negative whole number, got -1/ });
});

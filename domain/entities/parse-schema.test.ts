import t from 'tap';
import { ValidationError } from '../errors.ts';
import { parseSchema } from './parse-schema.ts';

const problemsOf = (text: string): string[] => {
  try {
    parseSchema(text);
  } catch (e) {
    if (e instanceof ValidationError) return e.problems.map((p) => `${p.line}:${p.column} ${p.message}`);
    throw e;
  }
  throw new Error('expected the schema to be rejected');
};

const ALL = /* GraphQL */ `
  "An account holding tokens"
  type Account @entity {
    id: ID!
    balance: BigInt!
    sent: [Transfer] @derivedFrom(field: "from")
    profile: Profile @derivedFrom(field: "account")
  }

  type Profile @entity {
    id: ID!
    account: Account! @index(unique: true)
  }

  enum TransferKind {
    MINT
    BURN
    MOVE
  }

  type Meta @jsonField {
    note: String
    tags: [String!]
  }

  type Transfer @entity @compositeIndexes(fields: [["blockHeight", "kind"]]) {
    id: ID!
    blockHeight: BigInt! @index
    from: Account!
    to: Account
    kind: TransferKind!
    count: Int
    price: Float
    exact: BigDecimal
    ok: Boolean!
    at: Date
    payload: Bytes
    raw: JSON
    meta: Meta
    labels: [String]!
    contractAddress: String! @index(unique: false)
  }
`;

t.test('every scalar, enum, relation, derived field, json type and index', async (t) => {
  const model = parseSchema(ALL);
  t.same(
    model.entities.map((e) => [e.name, e.table]),
    [
      ['Account', 'accounts'],
      ['Profile', 'profiles'],
      ['Transfer', 'transfers'],
    ],
  );
  t.same(model.enums, [{ name: 'TransferKind', pgName: 'transfer_kind', values: ['MINT', 'BURN', 'MOVE'] }]);
  t.same(model.jsonTypes[0], {
    name: 'Meta',
    fields: [
      { name: 'note', type: { kind: 'scalar', scalar: 'String' }, nullable: true, list: false, itemNullable: false },
      { name: 'tags', type: { kind: 'scalar', scalar: 'String' }, nullable: true, list: true, itemNullable: false },
    ],
  });

  const account = model.entities[0]!;
  t.equal(account.description, 'An account holding tokens');
  t.same(
    account.fields.find((f) => f.name === 'sent'),
    {
      name: 'sent',
      type: { kind: 'entity', entity: 'Transfer' },
      nullable: true,
      list: true,
      itemNullable: true,
      derivedFrom: 'from',
    },
  );
  t.equal(account.fields.find((f) => f.name === 'sent')!.column, undefined, 'derived fields have no column');

  const profile = model.entities[1]!;
  t.same(profile.indexes, [{ columns: ['account_id'], unique: true }]);

  const transfer = model.entities[2]!;
  const col = (name: string) => transfer.fields.find((f) => f.name === name)!;
  t.equal(col('blockHeight').column, 'block_height');
  t.same(col('blockHeight').type, { kind: 'scalar', scalar: 'BigInt' });
  t.equal(col('from').column, 'from_id');
  t.same(col('from').type, { kind: 'entity', entity: 'Account' });
  t.equal(col('to').nullable, true);
  t.same(col('kind').type, { kind: 'enum', name: 'TransferKind' });
  t.same(col('meta').type, { kind: 'json', name: 'Meta' });
  t.same(col('raw').type, { kind: 'scalar', scalar: 'JSON' });
  t.same([col('labels').list, col('labels').nullable, col('labels').itemNullable], [true, false, true]);
  for (const s of ['Int', 'Float', 'BigDecimal', 'Boolean', 'Date', 'Bytes']) {
    t.ok(
      transfer.fields.some((f) => f.type.kind === 'scalar' && f.type.scalar === s),
      `${s} field read`,
    );
  }
  t.same(transfer.indexes, [
    { columns: ['block_height'], unique: false },
    { columns: ['from_id'], unique: false },
    { columns: ['to_id'], unique: false },
    { columns: ['contract_address'], unique: false },
    { columns: ['block_height', 'kind'], unique: false },
  ]);
  t.same(JSON.parse(JSON.stringify(model)), model, 'the model is plain JSON, so it can be stored in _metadata');
});

t.test('syntax errors carry line and column', async (t) => {
  const err = t.throws(() => parseSchema('type A @entity {\n  id: ID!\n  x: \n}', 'my/schema.graphql')) as ValidationError;
  t.equal(err.code, 'VALIDATION_FAILED');
  t.match(err.message, /my\/schema\.graphql:4:1: syntax error/);
});

t.test('every problem is listed, each where it is', async (t) => {
  const problems = problemsOf(`type A @entity {
  id: ID!
  x: Foo
  y: String @indexx
  y: Int
  bs: [B]
}
type B @entity {
  name: String
}
type C {
  id: ID!
}
`);
  t.same(problems, [
    '11:1 C: every type needs @entity (a table) or @jsonField (stored as JSON inside an entity)',
    '3:6 A.x: unknown type "Foo"; expected one of ID, String, Int, BigInt, Float, Boolean, Date, Bytes, BigDecimal, JSON, an enum, an @entity or a @jsonField type',
    '4:13 A.y: unknown directive @indexx; fields take @index or @derivedFrom',
    '5:3 A.y is defined twice',
    '6:7 A.bs: a list of entities needs @derivedFrom(field: "…") naming the field of B that points back',
    '8:1 B: an entity needs the field "id: ID!"',
  ]);
});

t.test('@derivedFrom must name a relation back', async (t) => {
  t.same(
    problemsOf(`type A @entity { id: ID!, bs: [B] @derivedFrom(field: "owner"), cs: [C] @derivedFrom(field: "a") }
type B @entity { id: ID!, name: String }
type C @entity { id: ID!, a: String }`),
    ['1:35 A.bs: @derivedFrom(field: "owner") but B has no field "owner"', '1:73 A.cs: @derivedFrom(field: "a") needs C.a to be a relation to A'],
  );
});

t.test('columns that collide or are reserved are refused', async (t) => {
  t.same(problemsOf('type A @entity { id: ID!, blockHeight: Int, block_height: Int, ___createdAt: Date, _id: ID }'), [
    '1:45 A.block_height and A.blockHeight would both be stored in column "block_height"; rename one',
    '1:64 A.___createdAt: column "__created_at" is reserved for idx\'s own use; rename the field',
    '1:84 A._id and A.id would both be stored in column "id"; rename one',
  ]);
  t.same(
    parseSchema('type A @entity { id: ID!, __createdAt: Date }').entities[0]!.fields.map((f) => f.column),
    ['id', '_created_at'],
    'as sequelize does, one leading underscore goes',
  );
});

t.test('createdAt and updatedAt are ordinary fields, as in SubQuery (ENS Domain.createdAt)', async (t) => {
  const [a] = parseSchema('type Domain @entity { id: ID!, createdAt: BigInt!, updatedAt: Date }').entities;
  t.same(
    a!.fields.map((f) => [f.name, f.column]),
    [
      ['id', 'id'],
      ['createdAt', 'created_at'],
      ['updatedAt', 'updated_at'],
    ],
  );
});

t.test('JSON, lists and nested lists', async (t) => {
  t.same(problemsOf('type A @entity { id: ID!, j: JSON @index, m: [[Int]] }'), [
    '1:35 A.j: JSON and list fields cannot be indexed',
    '1:46 A.m: lists of lists are not supported; use a @jsonField type or JSON',
  ]);
  t.same(problemsOf('type J @jsonField { a: A }\ntype A @entity { id: ID!, j: J }'), [
    '1:24 J.a: a @jsonField type cannot refer to the entity A; store its id as a String',
  ]);
});

t.test('an empty schema is an error, not an empty project', async (t) => {
  t.same(problemsOf('enum E { A }'), ['undefined:undefined the schema declares no @entity type']);
});

t.test('the SubQuery starter schema reads as SubQuery names it', async (t) => {
  const model = parseSchema(`type StarterEntity @entity {
  id: ID! #id is a required field
  blockHeight: BigInt!
  field2: String #filed2 is an optional field
}`);
  const e = model.entities[0]!;
  t.equal(e.table, 'starter_entities');
  t.same(
    e.fields.map((f) => [f.name, f.column, f.nullable]),
    [
      ['id', 'id', false],
      ['blockHeight', 'block_height', false],
      ['field2', 'field2', true],
    ],
  );
});

t.test('@fullText: String fields and a text search configuration, as SubQuery reads it', async (t) => {
  const model = parseSchema(`type Nft @entity @fullText(fields: ["name", "longDescription"], language: "german") {
  id: ID!
  name: String!
  longDescription: String
}
type Plain @entity @fullText(fields: ["name"]) { id: ID!, name: String }`);
  t.same(model.entities[0]!.fullText, { fields: ['name', 'longDescription'], columns: ['name', 'long_description'], language: 'german' });
  t.same(model.entities[1]!.fullText, { fields: ['name'], columns: ['name'], language: 'english' }, 'english when no language is given');
  t.same(
    problemsOf(`type A @entity @fullText(fields: ["n", "missing", "count", "tags", "n"], language: "english") { id: ID!, n: String, count: Int, tags: [String] }
type B @entity @fullText(fields: []) { id: ID! }
type C @entity @fullText(fields: ["n"], language: "english'; drop table x; --") { id: ID!, n: String }
type D @entity @fullText(fields: ["n"], weights: [1]) { id: ID!, n: String }`),
    [
      '1:16 A: @fullText names "missing", which is not a field of A',
      '1:16 A: @fullText field "count" must be a String field (not a list, a relation or another type)',
      '1:16 A: @fullText field "tags" must be a String field (not a list, a relation or another type)',
      '1:16 A: @fullText names "n" twice',
      '2:16 B: @fullText needs fields: ["a", …], the String fields to search, e.g. @fullText(fields: ["name"], language: "english")',
      '3:16 C: @fullText language must be a PostgreSQL text search configuration such as "english" or "simple"',
      '4:41 D: @fullText takes fields and language, not weights',
    ],
  );
});

t.test('names PostgreSQL would cut at 63 bytes, or that would share a table or type, are refused', async (t) => {
  const long = `E${'x'.repeat(61)}`; // table e…es: 64 bytes
  t.same(
    problemsOf(`type ${long} @entity { id: ID!, ${'f'.repeat(64)}: Int, ${'g'.repeat(63)}: Int }
type Person @entity { id: ID! }
type People @entity { id: ID! }
enum TransferKind { A }
enum Transfer_Kind { B }
enum ${'K'.repeat(46)} { C }
enum Twice { A, B, A }`),
    [
      `5:1 enums TransferKind and Transfer_Kind would both be the database type "transfer_kind"; rename one`,
      `6:1 enum ${'K'.repeat(46)}: its database type name "${'k'.repeat(46)}" is too long (at most 45 bytes); shorten the name`,
      '7:20 enum Twice lists A twice',
      `1:88 ${long}.${'f'.repeat(64)}: its column name "${'f'.repeat(64)}" is longer than PostgreSQL's 63 bytes (PostgreSQL would cut it, and two such names could become one); shorten the name`,
      `1:1 ${long}: its table name "e${'x'.repeat(61)}es" is longer than PostgreSQL's 63 bytes (PostgreSQL would cut it, and two such names could become one); shorten the name`,
      '3:1 entities Person and People would both be stored in table "people"; rename one',
    ],
  );
  t.doesNotThrow(() => parseSchema(`type ${'E'.repeat(1)}${'x'.repeat(59)} @entity { id: ID!, ${'g'.repeat(63)}: Int }`), '63 bytes fit');
});

t.test('__proto__ cannot name a type, a field or an enum value', async (t) => {
  t.same(
    problemsOf('type A @entity { id: ID!, __proto__: Int }\nenum E { __proto__ }\ntype J @jsonField { __proto__: Int }\ntype B @entity { id: ID!, j: J }'),
    [
      '2:10 enum E value __proto__: "__proto__" cannot be a name (it is every JavaScript object\'s prototype); rename it',
      '3:21 J.__proto__: "__proto__" cannot be a name (it is every JavaScript object\'s prototype); rename it',
      '1:27 A.__proto__: "__proto__" cannot be a name (it is every JavaScript object\'s prototype); rename it',
    ],
  );
});

t.test('a schema nested or sized past the limits is refused without overflowing the parser', async (t) => {
  t.same(problemsOf(`type A @entity { id: ID!, x: ${'['.repeat(20_000)}String${']'.repeat(20_000)} }`), [
    'undefined:undefined nested more than 100 levels deep; idx reads at most 100 levels',
  ]);
  t.same(problemsOf(`type A @entity @x(a: ${'{a: '.repeat(5000)}1${'}'.repeat(5000)}) { id: ID! }`), [
    'undefined:undefined nested more than 100 levels deep; idx reads at most 100 levels',
  ]);
  const many = Array.from({ length: 30_000 }, (_, i) => `type A${i} @entity { id: ID! }`).join('\n');
  t.match(problemsOf(many)[0], /syntax error: Document contains more that 200000 tokens/);
});

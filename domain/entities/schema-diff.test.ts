import t from 'tap';
import { parseSchema } from './parse-schema.ts';
import { describeChange, diffSchemas } from './schema-diff.ts';

const base = `
enum Kind { A B }
type Account @entity { id: ID!, balance: BigInt!, sent: [Transfer] @derivedFrom(field: "from") }
type Transfer @entity { id: ID!, from: Account!, value: BigInt! @index, memo: String, kind: Kind }
type Gone @entity { id: ID! }
`;

t.test('the same schema has no differences', async (t) => {
  t.same(diffSchemas(parseSchema(base), parseSchema(base)), []);
});

t.test('every kind of difference is listed, in the order a migration applies them', async (t) => {
  const changed = base
    .replace('enum Kind { A B }', 'enum Kind { A C }\nenum Level { LOW HIGH }')
    .replace('balance: BigInt!', 'balance: BigDecimal')
    .replace('value: BigInt! @index', 'value: BigInt!')
    .replace('memo: String', 'note: String! @index')
    .replace('type Gone @entity { id: ID! }', 'type Added @entity { id: ID!, level: Level }')
    .replace('type Transfer @entity', 'type Transfer @entity @fullText(fields: ["note"])');
  const lines = diffSchemas(parseSchema(base), parseSchema(changed)).map(describeChange);
  t.same(lines, [
    'enum Kind: added C',
    'enum Kind: removed B',
    'added enum Level (LOW, HIGH)',
    'removed entity Gone (its table gones and data are dropped)',
    'Account: field balance changed from BigInt! to BigDecimal',
    'Transfer: removed field memo (column memo and its data are dropped)',
    'Transfer: added field note: String!',
    'Transfer: removed index on (value)',
    'Transfer: added index on (note)',
    'Transfer: added @fullText to (note) in english',
    'added entity Added (table addeds)',
  ]);
});

t.test('virtual fields change the model only', async (t) => {
  const changes = diffSchemas(parseSchema(base), parseSchema(base.replace(', sent: [Transfer] @derivedFrom(field: "from")', '')));
  t.same(changes, [{ kind: 'model-only', what: 'Account: removed field sent' }]);
});

t.test('@fullText changed or removed', async (t) => {
  const withText = base.replace('type Transfer @entity', 'type Transfer @entity @fullText(fields: ["memo"])');
  const describe = (a: string, b: string) => diffSchemas(parseSchema(a), parseSchema(b)).map(describeChange);
  t.same(describe(withText, withText.replace('["memo"]', '["memo"], language: "simple"')), ['Transfer: changed @fullText to (memo) in simple']);
  t.same(describe(withText, base), ['Transfer: removed @fullText']);
});

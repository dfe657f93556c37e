import t from 'tap';
import { parseSchema } from './parse-schema.ts';
import { timestampColumns } from './timestamp-columns.ts';

const entity = (fields: string) => parseSchema(`type A @entity { id: ID!${fields} }`).entities[0]!;

t.test('idx keeps created_at/updated_at unless a field of the entity owns the name', async (t) => {
  t.same(timestampColumns(entity(', name: String')), { created: 'created_at', updated: 'updated_at' });
  t.same(timestampColumns(entity(', createdAt: BigInt!')), { created: '__created_at', updated: 'updated_at' });
  t.same(timestampColumns(entity(', updated_at: Date')), { created: 'created_at', updated: '__updated_at' });
  t.same(timestampColumns(entity(', createdAt: BigInt!, updatedAt: Date')), { created: '__created_at', updated: '__updated_at' });
});

t.test('a relation or derived field named createdAt does not own the column', async (t) => {
  const model = parseSchema('type A @entity { id: ID!, createdAt: B, updatedAt: [B] @derivedFrom(field: "a") }\ntype B @entity { id: ID!, a: A }');
  t.same(timestampColumns(model.entities[0]!), { created: 'created_at', updated: 'updated_at' });
});

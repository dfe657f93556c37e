import t from 'tap';
import { schemaTable } from './schema-table.ts';

t.test('a table of the schema, both names quoted', async (t) => {
  t.equal(schemaTable('app', 'transfers'), '"app"."transfers"');
  t.equal(schemaTable('my-app', '_poi_1'), '"my-app"."_poi_1"');
});

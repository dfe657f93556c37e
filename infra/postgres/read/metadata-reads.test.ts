import t from 'tap';
import { chainTableNames, metadataByKeys, metadataWithoutModel } from './metadata-reads.ts';

t.test('metadata by keys, and all of it but the model', async (t) => {
  t.same(metadataByKeys('"app"."_metadata"', ['a', 'b']), {
    text: 'select key, value from "app"."_metadata" where key = any($1::text[])',
    values: ['{"a","b"}'],
  });
  t.same(metadataWithoutModel('"app"."_metadata_1"'), {
    text: `select key, value from "app"."_metadata_1" where key not in ('schema', 'idxDeployment', 'idxHandlerAccess', 'idxReuse')`,
    values: [],
  });
});

t.test("the chains' tables of a schema, from the catalog", async (t) => {
  const { text, values } = chainTableNames('app');
  t.match(text, /^select c\.relname as name from pg_class c join pg_namespace n on n\.oid = c\.relnamespace\s+where n\.nspname = \$1 and c\.relkind = 'r'/);
  t.match(text, /c\.relname = '_metadata' or c\.relname like \$2 or c\.relname like '\\_poi%'\)\s+order by c\.relname$/);
  t.same(values, ['app', '\\_metadata\\_%']);
});

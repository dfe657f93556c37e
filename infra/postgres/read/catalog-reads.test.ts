import t from 'tap';
import { rowCountEstimates, schemaSize } from './catalog-reads.ts';

t.test("a schema's row estimates and size, from the catalog", async (t) => {
  const rows = rowCountEstimates('app');
  t.match(rows.text, /^select c\.relname as table, greatest\(c\.reltuples, 0\)::int8 as estimate from pg_class c/);
  t.match(rows.text, /where n\.nspname = \$1 and c\.relkind = 'r' and left\(c\.relname, 1\) <> '_' order by c\.relname$/);
  t.same(rows.values, ['app']);
  t.same(schemaSize('app'), {
    text: `select coalesce(sum(pg_total_relation_size(c.oid)), 0)::text as size from pg_class c join pg_namespace n on n.oid = c.relnamespace where n.nspname = $1 and c.relkind = 'r'`,
    values: ['app'],
  });
});

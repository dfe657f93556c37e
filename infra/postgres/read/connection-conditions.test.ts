import t from 'tap';
import { amongParents, connectionWhere, distinctColumns } from './connection-conditions.ts';

t.test("a connection's conditions: the parent's first, the true ones left out", async (t) => {
  t.equal(connectionWhere('t', { version: 'true', filter: 'true' }), 'true');
  t.equal(connectionWhere('t', { version: 'upper_inf(t.__block_range)', filter: 'true' }), 'upper_inf(t.__block_range)');
  t.equal(
    connectionWhere('t', {
      version: '(lower(t.__block_range) <= ($1::int8) and t.__block_range @> ($1::int8))',
      filter: 't."v" > $2::numeric',
      parent: { column: 'from_id', id: 'p.__parent' },
    }),
    't."from_id" = p.__parent and (lower(t.__block_range) <= ($1::int8) and t.__block_range @> ($1::int8)) and t."v" > $2::numeric',
  );
  t.equal(connectionWhere('t', { version: 'true', filter: 'true', parent: { column: 'from_id', id: 'p.__parent' } }), 't."from_id" = p.__parent');
});

t.test('rows of many parents at once, and the distinct columns', async (t) => {
  t.equal(amongParents('t."from_id"', '$1::text[]::text[]', 'true'), 't."from_id" = any($1::text[]::text[]) and true');
  t.equal(distinctColumns('t', [{ column: 'from_id' }, { column: 'to_id' }]), 't."from_id", t."to_id"');
  t.equal(distinctColumns('t', []), '');
});

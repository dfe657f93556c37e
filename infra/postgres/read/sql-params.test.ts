import t from 'tap';
import { escapeLike, SqlParams, versionAt, versionCondition } from './sql-params.ts';

t.test('values go in as numbered text parameters with their cast', async (t) => {
  const p = new SqlParams();
  t.equal(p.add('a', 'text'), '$1::text');
  t.equal(p.add(5, 'int8'), '$2::int8');
  t.equal(p.add('\\x00', 'bytea'), '$3::text::bytea', 'bytea by way of text');
  t.equal(p.addList(['x', null], 'numeric'), '$4::text[]::numeric[]');
  t.same(p.values, ['a', '5', '\\x00', '{"x",NULL}']);
  t.equal(p.alias(), 't1');
  t.equal(p.alias(), 't2');
});

t.test('a NUL in a value is the user’s error', async (t) => {
  const code = (f: () => unknown) => {
    try {
      f();
    } catch (err) {
      return (err as { extensions?: { code?: string } }).extensions?.code;
    }
  };
  t.equal(
    code(() => new SqlParams().add('a\u0000', 'text')),
    'BAD_USER_INPUT',
  );
  t.equal(
    code(() => new SqlParams().addList(['\u0000'], 'text')),
    'BAD_USER_INPUT',
  );
});

t.test('the versions seen: live, at a height, or all of a table without history', async (t) => {
  const p = new SqlParams();
  t.equal(versionCondition({ historical: true }, 't', undefined, p), 'upper_inf(t.__block_range)');
  t.equal(versionCondition({ historical: true }, 't', 7n, p), '(lower(t.__block_range) <= ($1::int8) and t.__block_range @> ($1::int8))');
  t.same(p.values, ['7']);
  t.equal(versionCondition({ historical: false }, 't', 7n, new SqlParams()), 'true');
  t.equal(versionAt({ historical: true }, 'r', { sql: 'o.h' }), '(lower(r.__block_range) <= (o.h) and r.__block_range @> (o.h))');
});

t.test('LIKE patterns take %, _ and \\ literally', async (t) => {
  t.equal(escapeLike('50%_a\\b'), '50\\%\\_a\\\\b');
});

import t from 'tap';
import { createTestBackends } from '../../test/support/test-backends.ts';
import { createQueryContext } from './query-context.ts';

const backends = createTestBackends(t);
const settings = { aggregate: false, unsafe: false, queryLimit: 100, queryTimeoutMs: 5000 };
const metadata = { chains: async () => [] };

t.test("database failures reach the client in idx-query's words, never PostgreSQL's", (t) =>
  backends.each(t, async (t, b) => {
    const ctx = () => createQueryContext({ db: b.db.kysely, schema: b.schema, tables: new Map(), settings, metadata });
    const refusal = async (sql: string, params: unknown[] = []) => {
      const err = await ctx()
        .sql(sql, params)
        .then(
          () => undefined,
          (e: { message: string; extensions?: Record<string, unknown> }) => e,
        );
      t.ok(err, `${sql} fails`);
      t.notMatch(
        JSON.stringify({ message: err?.message, extensions: err?.extensions }),
        /sqlState|invalid input syntax|out of range for type|does not exist|overflow/,
        'no words of the database',
      );
      return err;
    };
    t.match(await refusal('select $1::int8', ['99999999999999999999']), {
      message: /a number in the query is out of range/,
      extensions: { code: 'BAD_USER_INPUT' },
    });
    t.match(await refusal('select $1::int', ['abc']), { message: /not valid for the field/, extensions: { code: 'BAD_USER_INPUT' } });
    t.match(await refusal('select $1::timestamptz', ['2024-99-99']), { extensions: { code: 'BAD_USER_INPUT' } });
    t.match(await refusal('select * from no_such_table'), { message: /the idx-query log has the cause/, extensions: { code: 'DATABASE_ERROR' } });
  }),
);

t.test('a request reads at most 50,000 rows, all statements together', (t) =>
  backends.each(t, async (t, b) => {
    const c = createQueryContext({ db: b.db.kysely, schema: b.schema, tables: new Map(), settings, metadata });
    t.equal((await c.sql('select generate_series(1, 30000)', [])).length, 30000, 'one statement under the bound');
    await t.rejects(
      c.sql('select generate_series(1, 30000)', []),
      { message: /reads more than 50000 rows/, extensions: { code: 'RESPONSE_TOO_LARGE' } },
      'the next one passes it',
    );
  }),
);

t.test('a raised --query-limit raises the rows-read bound to ten pages', (t) =>
  backends.each(t, async (t, b) => {
    const c = createQueryContext({ db: b.db.kysely, schema: b.schema, tables: new Map(), settings: { ...settings, queryLimit: 10_000 }, metadata });
    t.equal((await c.sql('select generate_series(1, 100000)', [])).length, 100_000);
    await t.rejects(c.sql('select 1', []), { message: /reads more than 100000 rows/ });
  }),
);

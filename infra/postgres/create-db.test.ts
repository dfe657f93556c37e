import { rm } from 'node:fs/promises';
import { PGlite } from '@electric-sql/pglite';
import { Kysely } from 'kysely';
import t from 'tap';
import { checkServerVersion, createDb, prepareDatabase } from './create-db.ts';
import { createPgliteDialect } from './pglite-dialect.ts';
import { execute } from './sql.ts';
import { freshPgliteDir, uniqueSchemaName } from '../../test/support/test-backends.ts';

const pgEnv = process.env.DB_HOST ? process.env : undefined;

t.test('without DB_HOST: PGlite in the given folder, with btree_gist, and the data survives a restart', async (t) => {
  const dir = await freshPgliteDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const db = await createDb({ env: {}, dataDir: dir });
  t.equal(db.kind, 'pglite');
  t.equal(db.description, `PGlite in ${dir}`);
  await execute(db.kysely, `create table kept (id text primary key, r int8range)`);
  await execute(db.kysely, `insert into kept values ('a', int8range(1, null))`);
  const [ext] = await execute<{ n: number }>(db.kysely, `select count(*)::int as n from pg_extension where extname = 'btree_gist'`);
  t.equal(ext!.n, 1);
  await db.close();

  const again = await createDb({ env: { DB_HOST: '' }, dataDir: dir });
  t.same(await execute(again.kysely, `select id, r::text as r from kept`), [{ id: 'a', r: '[1,)' }]);
  // transactions on the single PGlite connection do not interleave
  const order: string[] = [];
  await Promise.all(
    ['x', 'y', 'z'].map((id) =>
      again.kysely.transaction().execute(async (tx) => {
        order.push(`begin ${id}`);
        await execute(tx, `insert into kept values ($1, null)`, [id]);
        await new Promise((r) => setTimeout(r, 5));
        order.push(`end ${id}`);
      }),
    ),
  );
  t.same(order, ['begin x', 'end x', 'begin y', 'end y', 'begin z', 'end z']);
  await t.rejects(
    again.kysely.transaction().execute(async (tx) => {
      await execute(tx, `insert into kept values ('rolled back', null)`);
      throw new Error('boom');
    }),
    { message: 'boom' },
  );
  t.same(
    (await execute(again.kysely, `select id from kept order by id`)).map((r: any) => r.id),
    ['a', 'x', 'y', 'z'],
  );
  await again.close();
});

t.test('configuration errors name what to fix', async (t) => {
  await t.rejects(createDb({ env: {} }), { code: 'DB_CONFIG_INVALID', message: /DB_HOST is not set.*no data folder/ });
  await t.rejects(createDb({ env: { DB_HOST: '127.0.0.1', DB_PORT: 'five' } }), {
    code: 'DB_CONFIG_INVALID',
    message: 'DB_PORT must be a port number (1-65535), got "five"',
  });
  await t.rejects(createDb({ env: { DB_HOST: '127.0.0.1' }, ssl: { ca: '/no/such/ca.pem' } }), {
    code: 'DB_SSL_FILE',
    message: '--pg-ca file /no/such/ca.pem does not exist',
  });
  await t.rejects(createDb({ env: { DB_HOST: '127.0.0.1' }, ssl: { cert: '/no/such/client.pem', key: '/no/such/client.key' } }), {
    code: 'DB_SSL_FILE',
    message: /--pg-cert file \/no\/such\/client\.pem does not exist|--pg-key file/,
  });
});

t.test('an unreachable server: the error says where and what to check', async (t) => {
  const err = await createDb({ env: { DB_HOST: '127.0.0.1', DB_PORT: '1', DB_USER: 'postgres' } }).catch((e) => e);
  t.equal(err.code, 'DB_CONNECT_FAILED');
  t.match(err.message, /cannot reach PostgreSQL at 127\.0\.0\.1:1 .*Check that the server is running and that DB_HOST and DB_PORT point to it/);
  t.equal(err.retryable, true);
});

t.test('PostgreSQL: connects, enables btree_gist; a missing database is named', { skip: pgEnv ? false : 'DB_HOST is not set' }, async (t) => {
  const db = await createDb({ env: pgEnv! });
  t.equal(db.kind, 'postgres');
  t.match(db.description, /^PostgreSQL at /);
  const [ext] = await execute<{ n: number }>(db.kysely, `select count(*)::int as n from pg_extension where extname = 'btree_gist'`);
  t.equal(ext!.n, 1);
  await db.close();
  const missing = uniqueSchemaName('idx_no_such_db');
  await t.rejects(createDb({ env: { ...pgEnv!, DB_DATABASE: missing } }), {
    code: 'DB_CONNECT_FAILED',
    message: new RegExp(`database "${missing}" does not exist on PostgreSQL at .*DB_DATABASE`),
  });
});

t.test('servers older than 12 are refused with the version named', async (t) => {
  t.throws(() => checkServerVersion(110005, 'PostgreSQL at db:5432/x'), {
    code: 'DB_VERSION_UNSUPPORTED',
    message: 'PostgreSQL at db:5432/x runs PostgreSQL 11; idx needs version 12 or higher. Upgrade the server or point DB_HOST at a newer one.',
  });
  t.throws(() => checkServerVersion(90624, 'x'), { message: /runs PostgreSQL 9\.6;/ });
  t.doesNotThrow(() => checkServerVersion(120000, 'x'));
  t.doesNotThrow(() => checkServerVersion(180006, 'x'));
});

t.test('a server without btree_gist: a clear error saying how to get it', async (t) => {
  // A new in-memory PGlite without its btree_gist bundle stands in for a server lacking
  // postgresql-contrib (not a copied data folder: that may have the extension enabled already).
  const kysely = new Kysely<any>({ dialect: createPgliteDialect(await PGlite.create()) });
  t.teardown(() => kysely.destroy());
  await t.rejects(prepareDatabase(kysely, 'PGlite in test'), {
    code: 'DB_EXTENSION_MISSING',
    message: /PGlite in test lacks the btree_gist extension.*postgresql-contrib.*CREATE EXTENSION IF NOT EXISTS btree_gist/,
  });
});

import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { parseSchema } from '../domain/entities/parse-schema.ts';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import { createDb, type Db } from '../infra/postgres/create-db.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { dropProjectSchema, prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { execute } from '../infra/postgres/sql.ts';
import { uniqueSchemaName } from './support/test-backends.ts';
import { envFor } from './support/node-backends.ts';
import { BIN, programEnv } from './support/idx-programs.ts';
import { freePortGuess } from './support/node-ports.ts';
import { deadPort } from './support/local-rpc-server.ts';

interface Run {
  code: number | null;
  output: string;
}

/** `idx-query` as a user runs it; `whileUp` runs once it says where it serves, then it gets SIGTERM. */
function runQueryCli(
  args: readonly string[],
  env: Record<string, string | undefined>,
  whileUp?: (url: string) => Promise<void>,
): Promise<Run & { failure?: unknown }> {
  const child = spawn(process.execPath, [BIN('idx-query'), ...args], { env: programEnv(env), stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  let failure: unknown;
  let started = false;
  const onData = (d: Buffer) => {
    output += d;
    const m = /serving GraphQL .* at (http:\/\/localhost:\d+)\//.exec(output);
    if (m && whileUp && !started) {
      started = true;
      whileUp(m[1]!)
        .catch((e: unknown) => (failure = e))
        .finally(() => child.kill('SIGTERM'));
    }
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  return new Promise((resolve) => child.on('exit', (code) => resolve({ code, output, failure })));
}

/**
 * What the node leaves behind on PostgreSQL (tables, `operations` as versions, the model in
 * _metadata at `lastProcessedHeight`) in a new schema dropped when the test ends.
 */
async function transfersSchema(t: Test, prefix: string, lastProcessedHeight: number, operations: StoreOperation[]): Promise<{ db: Db; schema: string }> {
  const db = await createDb({ env: envFor('postgres') });
  const schema = uniqueSchemaName(prefix);
  t.teardown(async () => {
    await dropProjectSchema(db.kysely, schema);
    await db.close();
  });
  const model = parseSchema('type Transfer @entity { id: ID!, value: BigInt!, memo: String }');
  await prepareProjectSchema(db.kysely, model, { schema, historical: true, timestampField: true });
  const store = createEntityStore({ db: db.kysely, schema, model, historical: true, timestampField: true });
  await store.setMetadata({ schema: model, lastProcessedHeight, chain: '31337' });
  await store.flush({ operations });
  return { db, schema };
}

t.test('bad options exit 1 naming the flag; --help and --version exit 0', async (t) => {
  // every option's parsing is unit-tested in apps/query/query-options.test.ts; here, what the process does with a bad one
  const cases: [string[], RegExp][] = [
    [['--port', 'eighty'], /--port/],
    [['--log-rotate'], /--log-rotate needs --log-path/],
  ];
  await Promise.all(
    cases.map(async ([args, message]) => {
      const r = await runQueryCli(args, {});
      t.equal(r.code, 1, args.join(' '));
      t.match(r.output, message);
    }),
  );
  const help = await runQueryCli(['--help'], {});
  t.equal(help.code, 0);
  t.match(help.output, /--query-complexity/);
  const version = await runQueryCli(['--version'], {});
  t.equal(version.code, 0);
  t.match(version.output, /^\d+\.\d+\.\d+/);
});

t.test(
  'serves a PostgreSQL schema the node wrote; a missing project is a clear error',
  { skip: process.env.DB_HOST ? false : 'needs DB_HOST (PostgreSQL)' },
  async (t) => {
    const env = envFor('postgres');
    const { schema } = await transfersSchema(t, 'idx_qcli', 7, [
      { entity: 'Transfer', id: 'a', height: 5, op: 'set', data: { id: 'a', value: 10n ** 30n, memo: 'first' } },
      { entity: 'Transfer', id: 'a', height: 7, op: 'set', data: { id: 'a', value: 1n, memo: 'second' } },
    ]);

    const missing = await runQueryCli(['-n', `${schema}_nope`, '--port', String(freePortGuess())], env);
    t.equal(missing.code, 1);
    t.match(missing.output, new RegExp(`has idx-node indexed project "${schema}_nope" yet\\?`));

    const dir = await mkdtemp(join(tmpdir(), 'idx-qcli-'));
    t.teardown(() => rm(dir, { recursive: true, force: true }));
    const logPath = join(dir, 'query.log');
    const served = await runQueryCli(
      ['-n', schema, '--port', String(freePortGuess()), '--log-path', logPath, '--log-rotate', '--output-fmt', 'json'],
      env,
      async (url) => {
        const res = await fetch(`${url}/`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({
            query: '{ now: transfer(id: "a") { value memo } then: transfer(id: "a", blockHeight: "6") { value memo } _metadata { lastProcessedHeight } }',
          }),
        });
        t.same(await res.json(), {
          data: {
            now: { value: '1', memo: 'second' },
            then: { value: '1000000000000000000000000000000', memo: 'first' },
            _metadata: { lastProcessedHeight: 7 },
          },
        });
        t.equal((await fetch(`${url}/health`)).status, 200);
      },
    );
    t.equal(served.failure, undefined);
    t.equal(served.code, 0, 'SIGTERM stops it cleanly');
    const logged = (await readFile(logPath, 'utf8'))
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; category: string; message: string });
    t.ok(
      logged.some((l) => l.category === 'query' && /serving GraphQL for schema/.test(l.message)),
      '--log-path gets the log, as JSON with --output-fmt json',
    );
  },
);

t.test(
  'an unreachable DB_HOST_READ is named, with its value, not DB_HOST (which answered)',
  { skip: process.env.DB_HOST ? false : 'needs DB_HOST (PostgreSQL)' },
  async (t) => {
    const port = await deadPort();
    const r = await runQueryCli(['-n', 'x', '--port', String(freePortGuess())], {
      ...envFor('postgres'),
      DB_HOST_READ: '127.0.0.1',
      DB_PORT_READ: String(port),
    });
    t.equal(r.code, 1);
    t.match(r.output, `the read replica (DB_HOST_READ=127.0.0.1): cannot reach PostgreSQL at 127.0.0.1:${port}`);
    t.match(r.output, 'that DB_HOST_READ and DB_PORT_READ point to it');
    t.notMatch(r.output, /\bDB_HOST\b(?!_READ)/, 'DB_HOST, which answered, is not blamed');
  },
);

const SOCKET_DIR = '/var/run/postgresql';
const socketPort = process.env.DB_PORT || '5432';
t.test(
  'DB_HOST_READ: queries go to the read server, subscriptions LISTEN on DB_HOST; two processes answer alike',
  {
    skip:
      !process.env.DB_HOST || process.env.DB_HOST.startsWith('/')
        ? 'needs DB_HOST (PostgreSQL over TCP)'
        : !existsSync(join(SOCKET_DIR, `.s.PGSQL.${socketPort}`))
          ? `needs the server's Unix socket in ${SOCKET_DIR}, to reach it a second way`
          : false,
  },
  async (t) => {
    const env = envFor('postgres');
    const alone = await runQueryCli(['-n', 'x', '--port', String(freePortGuess())], { DB_HOST_READ: SOCKET_DIR });
    t.equal(alone.code, 1);
    t.match(alone.output, /DB_HOST_READ names a read replica of the PostgreSQL at DB_HOST; set DB_HOST too/);

    const { db, schema } = await transfersSchema(
      t,
      'idx_qread',
      9,
      Array.from({ length: 30 }, (_, i) => ({
        entity: 'Transfer',
        id: `t${String(i).padStart(2, '0')}`,
        height: 1 + (i % 9),
        op: 'set' as const,
        data: { id: `t${String(i).padStart(2, '0')}`, value: BigInt(i) * 10n ** 20n, memo: i % 3 === 0 ? null : `memo ${i}` },
      })),
    );

    // the same server reached a second way stands in for a replica: over TCP (DB_HOST) and its Unix socket (DB_HOST_READ)
    const queries = [
      '{ transfers(first: 7, orderBy: VALUE_DESC) { totalCount nodes { id nodeId value memo } pageInfo { hasNextPage endCursor } } }',
      '{ transfers(blockHeight: "4", filter: { memo: { isNull: false } }) { totalCount nodes { id } } }',
      '{ transfer(id: "t07") { value memo } _metadata { lastProcessedHeight chain } }',
    ];
    const answers = (url: string) =>
      Promise.all(
        queries.map(async (query) => {
          const res = await fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query }) });
          return res.json();
        }),
      );
    const a = await runQueryCli(['-n', schema, '--port', String(freePortGuess())], env, async (primaryUrl) => {
      const b = await runQueryCli(
        ['-n', schema, '--port', String(freePortGuess()), '--subscription'],
        { ...env, DB_HOST_READ: SOCKET_DIR },
        async (replicaUrl) => {
          const [onPrimary, onReplica] = await Promise.all([answers(primaryUrl), answers(replicaUrl)]);
          t.same(onReplica, onPrimary, 'both processes answer alike');
          t.equal((onPrimary[0] as { data: { transfers: { totalCount: number } } }).data.transfers.totalCount, 30);
          const seen = await execute<{ application_name: string; client_addr: string | null }>(
            db.kysely,
            `select application_name, client_addr::text as client_addr from pg_stat_activity where datname = current_database() and application_name like 'idx-query%'`,
          );
          const via = (app: string, socket: boolean) => seen.some((r) => r.application_name === app && (r.client_addr === null) === socket);
          t.ok(via('idx-query-listen', false) && !via('idx-query-listen', true), 'LISTEN on DB_HOST (TCP)');
          t.ok(via('idx-query', true), 'queries on DB_HOST_READ (the socket)');
        },
      );
      t.equal(b.failure, undefined, b.output.slice(-2000));
      t.match(b.output, /a read replica; LISTEN on PostgreSQL at /, 'the log says where it reads and where it listens');
    });
    t.equal(a.failure, undefined);
  },
);

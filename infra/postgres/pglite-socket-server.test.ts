import { existsSync } from 'node:fs';
import { rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { connect as netConnect } from 'node:net';
import pg from 'pg';
import t from 'tap';
import { createDb, type Db } from './create-db.ts';
import { ENDPOINT_FILE, findPgliteSocket, openPgliteSocketDb, publishPgliteSocket } from './pglite-socket-endpoint.ts';
import { createPgliteSocketServer, parseListen } from './pglite-socket-server.ts';
import { execute } from './sql.ts';
import { freshPgliteDir } from '../../test/support/test-backends.ts';

const dir = await freshPgliteDir();
t.teardown(() => rm(dir, { recursive: true, force: true }));
const node: Db = await createDb({ env: {}, dataDir: dir });
t.teardown(() => node.close());
await execute(node.kysely, 'create table items (id text primary key, n int)');

const published = await publishPgliteSocket(node, dir);
t.teardown(() => published.close());
const { host, port, owner } = published.endpoint;
const connect = async (extra: pg.ClientConfig = {}) => {
  const c = new pg.Client({ host, port, user: owner.user, password: owner.password, database: 'postgres', ...extra });
  await c.connect();
  return c;
};
const items = async () => (await execute<{ id: string }>(node.kysely, 'select id from items order by id')).map((r) => r.id);
const settled = async (p: Promise<unknown>, ms = 150) => Promise.race([p.then(() => true), new Promise((r) => setTimeout(() => r(false), ms))]);

t.test('a Unix socket in the data folder, named in idx-socket.json; pg queries with and without parameters', async (t) => {
  t.equal(host, dir);
  t.ok(existsSync(join(dir, '.s.PGSQL.5432')));
  t.same(await findPgliteSocket(dir), published.endpoint);
  const c = await connect();
  try {
    t.same((await c.query('select 1 + 1 as two')).rows, [{ two: 2 }]);
    await c.query('insert into items values ($1, $2), ($3, $4)', ['a', 1, 'b', 2]);
    t.same((await c.query('select id, n from items where n > $1 order by id', [0])).rows, [
      { id: 'a', n: 1 },
      { id: 'b', n: 2 },
    ]);
    await t.rejects(c.query('selec 1'), { code: '42601' }, 'errors come back as PostgreSQL errors');
    await t.rejects(c.query('select $1::int', ['x']), { code: '22P02' });
    t.same((await c.query('select 3 as n')).rows, [{ n: 3 }], 'and the connection stays usable');
    t.same(await items(), ['a', 'b'], 'the node sees what a client wrote');
  } finally {
    await c.end();
    await execute(node.kysely, 'delete from items');
  }
});

t.test("every login needs its password; the socket and the endpoint file are the owner's alone", async (t) => {
  t.equal((await stat(join(dir, '.s.PGSQL.5432'))).mode & 0o777, 0o600, 'socket file 0600');
  t.equal((await stat(join(dir, ENDPOINT_FILE))).mode & 0o777, 0o600, 'endpoint file 0600');
  t.equal(published.endpoint.reader.user, 'idx_query');
  t.equal(published.endpoint.owner.user, 'postgres');
  const attempt = (config: pg.ClientConfig) => {
    const c = new pg.Client({ host, port, database: 'postgres', ...config });
    c.on('error', () => undefined);
    return c.connect().finally(() => c.end().catch(() => undefined));
  };
  await t.rejects(attempt({ user: 'postgres', password: 'guess' }), { code: '28P01' }, 'a wrong password is refused');
  await t.rejects(attempt({ user: 'postgres', password: published.endpoint.reader.password }), { code: '28P01' }, "another login's password too");
  await t.rejects(attempt({ user: 'root', password: 'x' }), { code: '28P01' }, 'an unknown user');
  await t.resolves(attempt({ user: 'idx_query', password: published.endpoint.reader.password }), "the reader's login");
});

t.test("idx-query's login reads and cannot write, nor make itself writable", async (t) => {
  const db = await openPgliteSocketDb(dir, { maxConnections: 2 });
  const q = (sql: string, params: unknown[] = []) => execute(db.kysely, sql, params);
  try {
    await execute(node.kysely, `insert into items values ('r', 1)`);
    t.same(await q('select id, n from items'), [{ id: 'r', n: 1 }], 'reads work');
    t.same(await q('select n from items where id = $1', ['r']), [{ n: 1 }], 'with parameters too');
    const refused: [string, unknown[]?][] = [
      [`update items set n = 31337 where id = 'r' returning n`],
      [`update items set n = $1 returning n`, [31337]],
      [`insert into items values ('w', 2)`],
      [`delete from items`],
      ['create table stolen (x int)'],
      ['create temp table stolen (x int)'],
      ['select 1 into stolen'],
      [`with x as (insert into items values ('cte', 3) returning 1) select * from x`],
      ['set default_transaction_read_only = off'],
      ['SET "default_transaction_read_only" TO off'],
      ['reset all'],
      [`select set_config('default_transaction_read_only', 'off', false)`],
      [`begin read write`],
      [`start transaction isolation level serializable, read /* */ write`],
      ['set session characteristics as transaction read write'],
      [`select 1; insert into items values ('two', 2)`],
      [`commit; insert into items values ('two', 2)`],
      [`do $$ begin insert into items values ('do', 1); end $$`],
      [`copy items to '/tmp/items.csv'`],
      [`select pg_sleep(5)`],
      [`select query_to_xml('select 1', true, true, '')`],
      [`select * from U&"items"`],
      [`truncate items`],
    ];
    for (const [sql, params] of refused) await t.rejects(q(sql, params), { code: /^(25006|42501)$/ }, sql);
    t.same(await q('select id, n from items'), [{ id: 'r', n: 1 }], 'nothing changed');
    t.notOk((await execute(node.kysely, `select to_regclass('stolen') as r`))[0]!.r, 'no table made');

    // a transaction of its own: read-only from BEGIN to COMMIT
    const c = new pg.Client({ host, port, user: 'idx_query', password: published.endpoint.reader.password, database: 'postgres' });
    await c.connect();
    try {
      await c.query('begin');
      t.same((await c.query('select n from items')).rows, [{ n: 1 }]);
      await t.rejects(c.query('set transaction read write'), { code: '25006' });
      await t.rejects(c.query(`update items set n = 2`), { code: '25006' });
      await c.query('rollback');
      await c.query(`set search_path = public`);
      t.same((await c.query('select count(*)::int as n from items')).rows, [{ n: 1 }], 'and its own SETs of other settings work');
      t.same((await c.query(`select current_setting('default_transaction_read_only') as v`)).rows, [{ v: 'on' }]);
    } finally {
      await c.end();
    }
    // the node's session is its own again: it writes
    await execute(node.kysely, `update items set n = 2 where id = 'r'`);
    t.same(await items(), ['r'], 'the node still writes');
    t.same((await execute(node.kysely, `select current_setting('default_transaction_read_only') as v`))[0], { v: 'off' });
  } finally {
    await db.close();
    await execute(node.kysely, 'delete from items');
  }
});

t.test('a transaction that holds the session while the node waits is rolled back after the bound', async (t) => {
  // the attack: BEGIN, a lock, and a statement now and then so that it is never idle
  const c = await connect();
  const errors: Error[] = [];
  c.on('error', (e) => errors.push(e));
  let stop = false;
  try {
    await c.query('begin');
    await c.query(`lock table items in access exclusive mode`);
    await c.query(`insert into items values ('attacker', 1)`);
    const ticking = (async () => {
      while (!stop) {
        await new Promise((r) => setTimeout(r, 200));
        // dropped mid-statement, the reason is that statement's error
        await c.query('select 1').catch((e: Error) => {
          errors.push(e);
          stop = true;
        });
      }
    })();
    await new Promise((r) => setTimeout(r, 300));
    const started = Date.now();
    // the node's flush
    const flush = node.kysely.transaction().execute((tx) => execute(tx, `insert into items values ('node', 2)`));
    const wrote = await Promise.race([flush.then(() => true), new Promise((r) => setTimeout(() => r(false), 10_000))]);
    const waited = Date.now() - started;
    t.ok(wrote && waited < 3000, `the node wrote after ${waited} ms (bound: 1 s, checked every 100 ms)`);
    stop = true;
    await ticking;
    await flush;
    t.same(await items(), ['node'], "the attacker's transaction was rolled back");
    t.ok(
      errors.some((e) => /transaction open for more than 1 s while idx-node waited to write; rolled back/.test(e.message)),
      'the client is told why',
      { errors: errors.map((e) => e.message) },
    );
  } finally {
    stop = true;
    await c.end().catch(() => undefined);
    await execute(node.kysely, 'delete from items');
  }

  // the attacker back at once after each rollback: the node's next writes wait a fifth of the bound, not all of it
  for (let round = 0; round < 3; round++) {
    const again = await connect();
    again.on('error', () => undefined);
    await again.query('begin');
    await again.query('lock table items in access exclusive mode');
    const ticking = (async () => {
      for (;;) {
        await new Promise((r) => setTimeout(r, 50));
        if (
          !(await again.query('select 1').then(
            () => true,
            () => false,
          ))
        )
          return;
      }
    })();
    const started = Date.now();
    await node.kysely.transaction().execute((tx) => execute(tx, `insert into items values ('node${round}', 2)`));
    const waited = Date.now() - started;
    t.ok(waited < 700, `after a rollback, the next held transaction made the node wait ${waited} ms (0.2 s, checked every 0.1 s)`);
    await ticking;
    await again.end().catch(() => undefined);
  }
  await execute(node.kysely, 'delete from items');
});

t.test("the socket's clients take their turns after the node's queries waiting with them", async (t) => {
  const c = await connect();
  t.teardown(() => c.end());
  const order: string[] = [];
  // the node holds the session; a client's query and then two of the node's queue behind it
  let release!: () => void;
  const held = node.kysely.connection().execute(() => new Promise<void>((resolve) => (release = resolve)));
  await new Promise((r) => setTimeout(r, 50));
  const client = c.query('select 1').then(() => order.push('client'));
  await new Promise((r) => setTimeout(r, 100));
  const nodeQueries = [1, 2].map((i) => execute(node.kysely, 'select 1').then(() => order.push(`node ${i}`)));
  release();
  await held;
  await Promise.all([client, ...nodeQueries]);
  t.same(order, ['node 1', 'node 2', 'client'], 'the node first, though the client asked first');
});

t.test('a client refused while it still writes reads why', async (t) => {
  for (let round = 0; round < 10; round++) {
    const socket = host.startsWith('/') ? netConnect(join(host, `.s.PGSQL.${port}`)) : netConnect(port, host);
    let received = '';
    socket.on('data', (d: Buffer) => (received += d.toString('latin1')));
    const ended = new Promise<void>((r) => socket.once('close', () => r()));
    socket.on('error', () => undefined);
    await new Promise<void>((r) => socket.once('connect', () => r()));
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(4, 0); // a startup packet shorter than its header: refused at once
    socket.write(bad);
    // and the client goes on writing, as a pipelining driver does
    const junk = Buffer.alloc(64 * 1024, 0x61);
    const writing = setInterval(() => socket.writable && socket.write(junk), 1);
    await Promise.race([ended, new Promise((r) => setTimeout(r, 3000))]);
    clearInterval(writing);
    socket.destroy();
    t.match(received, /invalid startup packet/, `round ${round}: the reason arrived (${received.length} bytes)`);
  }
});

t.test('a message declared larger than the limit is refused at once, before any of it is kept', async (t) => {
  const c = await connect();
  const errors: Error[] = [];
  c.on('error', (e) => errors.push(e));
  const stream = (c as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream;
  const closed = new Promise<void>((r) => stream.once('close', () => r()));
  const rssBefore = process.memoryUsage().rss;
  // a Q of 2 GB, streamed in 1 MB chunks for as long as the server reads them (at most 300 MB)
  const header = Buffer.alloc(5);
  header.write('Q');
  header.writeInt32BE(2 ** 31 - 1, 1);
  stream.write(header);
  const chunk = Buffer.alloc(1024 * 1024, 0x61);
  let sent = 0;
  let open = true;
  void closed.then(() => (open = false));
  const started = Date.now();
  while (open && sent < 300 && Date.now() - started < 20_000) {
    if (!stream.write(chunk)) await new Promise((r) => setTimeout(r, 5));
    sent++;
    await new Promise((r) => setImmediate(r));
  }
  await Promise.race([closed, new Promise((r) => setTimeout(r, 5000))]);
  t.notOk(open, `closed after ${Date.now() - started} ms`);
  stream.destroy();
  t.match(errors[0]?.message ?? '', /message of 2147483643 bytes is over the limit of 16777216 bytes/);
  const grown = (process.memoryUsage().rss - rssBefore) / 1024 / 1024;
  t.ok(grown < 100, `memory grew by ${grown.toFixed(0)} MB`);
  t.ok(sent < 300, `the server stopped reading after ${sent} MB`);
  // and everyone else goes on
  const other = await connect();
  t.same((await other.query('select 1 as n')).rows, [{ n: 1 }]);
  await other.end();
});

t.test('a large message within the limit, streamed in small chunks, is put together in linear time', async (t) => {
  const c = await connect();
  const stream = (c as unknown as { connection: { stream: import('node:net').Socket } }).connection.stream;
  stream.removeAllListeners('data'); // from here on the test reads the answers itself
  // one simple query of `bytes`, written 4 KiB at a time, each after the server has had its turn
  const send = async (bytes: number) => {
    const sql = Buffer.from(`select length('${'a'.repeat(bytes - 40)}') as n\0`);
    const msg = Buffer.concat([Buffer.from('Q'), Buffer.alloc(4), sql]);
    msg.writeInt32BE(msg.length - 1, 1);
    const answer = new Promise<number>((resolve) => {
      let got = Buffer.alloc(0);
      const onData = (d: Buffer) => {
        got = Buffer.concat([got, d]);
        if (got.includes(Buffer.from('Z\0\0\0\x05'))) {
          stream.off('data', onData);
          resolve(Number(/(\d+)/.exec(got.toString('latin1', got.indexOf(Buffer.from('D'))))?.[1]));
        }
      };
      stream.on('data', onData);
    });
    const started = performance.now();
    for (let at = 0; at < msg.length; at += 4096) {
      stream.write(msg.subarray(at, at + 4096));
      await new Promise((r) => setImmediate(r));
    }
    const n = await answer;
    return { n, ms: performance.now() - started };
  };
  const small = await send(1024 * 1024);
  const large = await send(8 * 1024 * 1024);
  t.equal(large.n, 8 * 1024 * 1024 - 40, 'answered');
  t.ok(
    large.ms / small.ms < 24,
    `8 MiB took ${large.ms.toFixed(0)} ms, 1 MiB ${small.ms.toFixed(0)} ms: ×${(large.ms / small.ms).toFixed(1)} for ×8 (the square would be ×64)`,
  );
  c.end().catch(() => undefined);
});

t.test('many clients at once, through a pool, as idx-query connects', async (t) => {
  const db = await openPgliteSocketDb(dir, { maxConnections: 5 });
  try {
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => execute<{ n: number }>(db.kysely, 'select $1::int * 2 as n', [i])));
    t.same(
      answers.map((r) => r[0]!.n),
      Array.from({ length: 40 }, (_, i) => i * 2),
    );
    t.match(db.description, /embedded database of idx-node/);
  } finally {
    await db.close();
  }
});

t.test("a client's transaction and the node's never mix", async (t) => {
  const c = await connect();
  try {
    await c.query('begin');
    await c.query(`insert into items values ('client', 1)`);
    const nodeWrite = execute(node.kysely, `insert into items values ('node', 2)`);
    t.notOk(await settled(nodeWrite), 'the node waits while a client is inside a transaction');
    await c.query('rollback');
    await nodeWrite;
    t.same(await items(), ['node'], "the client's rollback did not take the node's write with it");

    // and the other way round: a client waits for the node's open transaction
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const nodeTx = node.kysely.transaction().execute(async (tx) => {
      await execute(tx, `insert into items values ('tx', 3)`);
      await held;
      throw new Error('roll back');
    });
    await new Promise((r) => setTimeout(r, 50));
    const read = c.query('select count(*)::int as n from items');
    t.notOk(await settled(read), "a client waits for the node's transaction");
    release();
    await t.rejects(nodeTx, /roll back/);
    t.same((await read).rows, [{ n: 1 }], 'and never sees the rolled-back write');
  } finally {
    await c.end();
    await execute(node.kysely, 'delete from items');
  }
});

t.test("PGlite's own transaction() keeps clients out too", async (t) => {
  const c = await connect();
  try {
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const tx = node.pglite!.transaction(async (tx) => {
      await tx.query(`insert into items values ('ptx', 1)`);
      await held;
      throw new Error('roll back');
    });
    await new Promise((r) => setTimeout(r, 50));
    const read = c.query('select count(*)::int as n from items');
    t.notOk(await settled(read), 'the client waits');
    release();
    await t.rejects(tx, /roll back/);
    t.same((await read).rows, [{ n: 0 }]);
  } finally {
    await c.end();
  }
});

t.test('a client that disconnects inside a transaction is rolled back', async (t) => {
  const c = await connect();
  await c.query('begin');
  await c.query(`insert into items values ('lost', 1)`);
  await c.end();
  await execute(node.kysely, `insert into items values ('kept', 2)`);
  t.same(await items(), ['kept']);
  await execute(node.kysely, 'delete from items');
});

t.test("a client's settings stay its own", async (t) => {
  // PGlite applies statement_timeout's value but cannot enforce it (no timer signals in WASM): checked by value.
  const c = await connect({ statement_timeout: 100, options: '-c work_mem=8MB' });
  const other = await connect();
  const setting = async (client: pg.Client, name: string) => (await client.query('select current_setting($1) as s', [name])).rows[0].s as string;
  const nodeSetting = async (name: string) => (await execute<{ s: string }>(node.kysely, 'select current_setting($1) as s', [name]))[0]!.s;
  try {
    t.equal(await setting(c, 'statement_timeout'), '100ms', 'startup parameters apply');
    t.equal(await setting(c, 'work_mem'), '8MB', 'and -c settings in options');
    t.equal(await setting(other, 'statement_timeout'), '0', 'but not to another client');
    t.equal(await nodeSetting('work_mem'), '4MB', 'nor to the node');
    const nodeDefault = await nodeSetting('search_path');
    await c.query('set search_path = nowhere');
    t.equal(await setting(c, 'search_path'), 'nowhere', "a client's SET lasts for its later queries");
    t.equal(await setting(c, 'statement_timeout'), '100ms', 'with its startup settings');
    t.equal(await nodeSetting('search_path'), nodeDefault, 'a SET does not leak into the node');
    t.equal(await setting(other, 'search_path'), nodeDefault, 'nor into another client');
  } finally {
    await c.end();
    await other.end();
  }
});

t.test('LISTEN/NOTIFY: notifications go to the clients that listen on the channel', async (t) => {
  const a = await connect();
  const b = await connect();
  try {
    const gotA: string[] = [];
    const gotB: string[] = [];
    a.on('notification', (n) => gotA.push(`${n.channel}:${n.payload}`));
    b.on('notification', (n) => gotB.push(`${n.channel}:${n.payload}`));
    await a.query('LISTEN "Mixed.Case"');
    await b.query('listen other');
    await execute(node.kysely, `select pg_notify('Mixed.Case', 'one'), pg_notify('other', 'two'), pg_notify('nobody', 'x')`);
    await node.kysely.transaction().execute(async (tx) => {
      await execute(tx, `select pg_notify('Mixed.Case', 'three')`);
      await execute(tx, `insert into items values ('n', 1)`);
    });
    await new Promise((r) => setTimeout(r, 100));
    t.same(gotA, ['Mixed.Case:one', 'Mixed.Case:three']);
    t.same(gotB, ['other:two']);
    await a.query('unlisten *');
    await b.query(`select pg_notify('Mixed.Case', 'from a client')`);
    await b.query(`select pg_notify('other', 'to itself')`);
    await new Promise((r) => setTimeout(r, 100));
    t.same(gotA, ['Mixed.Case:one', 'Mixed.Case:three'], 'nothing after UNLISTEN *');
    t.same(gotB, ['other:two', 'other:to itself'], "a client's own NOTIFY reaches listeners too");
  } finally {
    await a.end();
    await b.end();
    await execute(node.kysely, 'delete from items');
  }
});

t.test('a client idle inside a transaction too long is rolled back and dropped', async (t) => {
  const server = await createPgliteSocketServer({
    pglite: node.pglite!,
    exclusive: (fn) => node.kysely.connection().execute(() => fn()),
    listen: { host: '127.0.0.1', port: 0 },
    users: [{ name: 'postgres', password: 'pw', readOnly: false }],
    idleInTransactionMs: 200,
  });
  try {
    const address = server.address as { host: string; port: number };
    const c = new pg.Client({ host: address.host, port: address.port, user: 'postgres', password: 'pw' });
    const errors: Error[] = [];
    c.on('error', (e) => errors.push(e));
    await c.connect();
    await c.query('begin');
    await c.query(`insert into items values ('idle', 1)`);
    await new Promise((r) => setTimeout(r, 400));
    t.same(await items(), [], 'rolled back');
    t.match(errors[0]?.message ?? '', /idle in a transaction/);
    await c.end().catch(() => undefined);
  } finally {
    await server.close();
  }
});

t.test('parseListen reads channel names as PostgreSQL does', async (t) => {
  t.same(parseListen('LISTEN "a.B"'), { kind: 'listen', channel: 'a.B' });
  t.same(parseListen(' listen Foo ; '), { kind: 'listen', channel: 'foo' });
  t.same(parseListen('UNLISTEN *'), { kind: 'unlisten' });
  t.same(parseListen('unlisten "x""y"'), { kind: 'unlisten', channel: 'x"y' });
  t.equal(parseListen('listen a; select 1'), undefined);
  t.equal(parseListen('select 1'), undefined);
});

t.test('no node: a clear error', async (t) => {
  const empty = await freshPgliteDir();
  t.teardown(() => rm(empty, { recursive: true, force: true }));
  await t.rejects(findPgliteSocket(empty), { code: 'EMBEDDED_NODE_NOT_RUNNING', message: /no idx-node is serving it.*Start idx-node on the project first/ });
  const other = await createDb({ env: {}, dataDir: empty });
  const p = await publishPgliteSocket(other, empty);
  await p.close();
  await other.close();
  t.notOk(existsSync(join(empty, ENDPOINT_FILE)), 'the endpoint file goes with the node');
  await t.rejects(openPgliteSocketDb(empty), { code: 'EMBEDDED_NODE_NOT_RUNNING' });
});

t.test("a node killed in another container: its pid is not looked up in this pid space, the socket's silence is reported", async (t) => {
  const dir = await freshPgliteDir();
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  // pid 1 is alive here (init, or this container's first process): it must not count as the node
  const logins = { reader: { user: 'idx_query', password: 'x' }, owner: { user: 'postgres', password: 'y' } };
  await writeFile(join(dir, ENDPOINT_FILE), JSON.stringify({ host: dir, port: 5432, pid: 1, hostname: 'another-container', ...logins }), { mode: 0o600 });
  await t.rejects(openPgliteSocketDb(dir), {
    code: 'EMBEDDED_NODE_NOT_RUNNING',
    message:
      /cannot connect to the embedded database of idx-node \(pid 1 on another-container\).*runs in another container or on another host: is it still running\?/,
  });
  await writeFile(join(dir, ENDPOINT_FILE), JSON.stringify({ host: dir, port: 5432, pid: 2 ** 22 + 1, hostname: hostname(), ...logins }), { mode: 0o600 });
  await t.rejects(findPgliteSocket(dir), { code: 'EMBEDDED_NODE_NOT_RUNNING', message: /pid 4194305\) is no longer running/ }, 'on this host the pid tells');
});

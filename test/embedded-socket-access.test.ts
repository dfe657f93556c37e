import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { openPgliteSocketDb, type PgliteSocketEndpoint } from '../infra/postgres/pglite-socket-endpoint.ts';
import { execute } from '../infra/postgres/sql.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject } from './support/project-copies.ts';
import { servedPort } from './support/node-ports.ts';
import { spawnWatchedNode } from './support/watched-node.ts';
import { uniqueSchemaName } from './support/test-backends.ts';

/**
 * Who can reach the embedded database a running idx-node serves (real processes: the node's CLI,
 * a raw PostgreSQL client run as another OS user, idx-query's connection): the owner, with the
 * logins of the 0600 endpoint file; nobody else, whether the socket is in the data folder, in a
 * private folder (the project's path too long for a socket name), or on TCP (no such folder).
 * And a client holding a transaction open does not stop the node's indexing.
 */
const { anvil, client, workload, built } = await setupErc20Chain(t, 2);
// three node runs, one after the other, on a machine that may be busy
t.setTimeout(600_000);
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

/**
 * A PostgreSQL client with nothing but node:net, run as `nobody`: reads the endpoint file, connects,
 * logs in as postgres (a guessed SCRAM proof when asked for a password) and says how far it got.
 */
const PROBE = `
const [file, target] = process.argv.slice(1);
const out = {};
try { require('fs').readFileSync(file); out.read = 'ok'; } catch (e) { out.read = e.code; }
const where = JSON.parse(target);
const net = require('net');
const done = () => { process.stdout.write(JSON.stringify(out)); process.exit(0); };
const msg = (type, body) => { const b = Buffer.alloc(5 + body.length); b.write(type); b.writeInt32BE(4 + body.length, 1); body.copy(b, 5); return b; };
const sock = net.connect(where.path ? { path: where.path } : { host: where.host, port: where.port });
sock.on('error', (e) => { out.connect = out.connect || e.code; done(); });
sock.on('close', done);
let buf = Buffer.alloc(0);
sock.on('connect', () => {
  out.connect = 'ok';
  const params = Buffer.from('user\\0postgres\\0database\\0postgres\\0\\0');
  const start = Buffer.alloc(8); start.writeInt32BE(8 + params.length); start.writeInt32BE(196608, 4);
  sock.write(Buffer.concat([start, params]));
});
sock.on('data', (d) => {
  buf = Buffer.concat([buf, d]);
  while (buf.length >= 5 && buf.length >= 1 + buf.readInt32BE(1)) {
    const type = String.fromCharCode(buf[0]); const body = buf.subarray(5, 1 + buf.readInt32BE(1)); buf = buf.subarray(1 + buf.readInt32BE(1));
    if (type === 'R' && body.readInt32BE(0) === 0) { out.auth = 'none asked'; sock.write(msg('Q', Buffer.from("select 'in' as x\\0"))); }
    else if (type === 'R' && body.readInt32BE(0) === 10) {
      out.auth = 'asked';
      const first = Buffer.from('n,,n=,r=guessguessguess'); const len = Buffer.alloc(4); len.writeInt32BE(first.length);
      sock.write(msg('p', Buffer.concat([Buffer.from('SCRAM-SHA-256\\0'), len, first])));
    } else if (type === 'R' && body.readInt32BE(0) === 11) {
      const nonce = /r=([^,]+)/.exec(body.subarray(4).toString())[1];
      sock.write(msg('p', Buffer.from('c=biws,r=' + nonce + ',p=' + Buffer.alloc(32, 7).toString('base64'))));
    } else if (type === 'D') { out.query = 'ran'; }
    else if (type === 'E') { out.error = /C([0-9A-Z]{5})/.exec(body.toString('latin1'))[1]; }
    else if (type === 'Z') { sock.end(); }
  }
});
setTimeout(done, 10000);
`;

type Target = { path: string } | { host: string; port: number };

async function probeAsNobody(file: string, target: Target): Promise<Record<string, string>> {
  const child = spawn(process.execPath, ['-e', PROBE, file, JSON.stringify(target)], { uid: NOBODY, gid: NOBODY, cwd: '/', env: { PATH: process.env.PATH } });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  child.stderr.on('data', (d) => (out += d));
  await new Promise((r) => child.on('exit', r));
  return JSON.parse(out) as Record<string, string>;
}

async function until(what: string, ok: () => Promise<boolean> | boolean, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

async function metaHeight(output: string): Promise<number> {
  const port = servedPort(output);
  if (port === undefined) return 0;
  const meta = (await fetch(`http://127.0.0.1:${port}/meta`)
    .then((r) => r.json())
    .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
  return meta?.lastProcessedHeight ?? 0;
}

/** A project copy whose folder path is `length` bytes long or more. */
async function projectAt(t: Test, length?: number): Promise<string> {
  const copy = await copyProject(t, built);
  if (length === undefined) return copy;
  const deep = join(dirname(copy), 'p'.repeat(Math.max(1, length - copy.length)), 'erc20');
  await mkdir(dirname(deep), { recursive: true });
  const { rename } = await import('node:fs/promises');
  await rename(copy, deep);
  return deep;
}

async function check(t: Test, where: 'data folder' | 'private folder' | 'tcp', env: Record<string, string> = {}): Promise<void> {
  const dir = await projectAt(t, where === 'data folder' ? undefined : 120);
  const dataDir = join(dir, '.idx-data');
  const schema = uniqueSchemaName('idx_sock');
  const node = spawnWatchedNode(dir, env, ['--network-endpoint', anvil.url, '--db-schema', schema], () => undefined, 1000);
  t.teardown(() => (node.child.exitCode === null ? (node.child.kill('SIGTERM'), node.exited) : undefined));
  const file = join(dataDir, 'idx-socket.json');
  // the socket is served once the schema is ready; the held-transaction check needs the workload indexed
  if (where === 'data folder') await until('the node to index the workload', async () => (await metaHeight(node.output())) >= workload.toBlock);
  else await until('the node to serve its database', () => existsSync(file));
  const endpoint = JSON.parse(await readFile(file, 'utf8')) as PgliteSocketEndpoint;
  t.equal((await stat(file)).mode & 0o777, 0o600, 'the endpoint file is the owner’s alone (0600)');

  const target: Target = endpoint.host.startsWith('/') ? { path: join(endpoint.host, '.s.PGSQL.5432') } : { host: endpoint.host, port: endpoint.port };
  if ('path' in target) {
    t.equal((await stat(target.path)).mode & 0o777, 0o600, 'the socket file is 0600');
    if (where === 'private folder') {
      t.not(endpoint.host, dataDir, 'the path being too long, the socket is elsewhere');
      t.equal((await stat(endpoint.host)).mode & 0o777, 0o700, 'in a private folder (0700)');
    } else t.equal(endpoint.host, dataDir, 'in the data folder');
  }
  t.equal('path' in target ? where !== 'tcp' : where === 'tcp', true, `served on ${'path' in target ? target.path : `${target.host}:${target.port}`}`);

  await t.test('another OS user (nobody) is refused', { skip: asRoot ? false : 'needs root, to run a client as another user' }, async (t) => {
    const seen = await probeAsNobody(file, target);
    t.equal(seen.read, 'EACCES', 'another user cannot read the endpoint file');
    if ('path' in target) t.equal(seen.connect, 'EACCES', 'nor connect to the socket');
    else t.match(seen, { connect: 'ok', auth: 'asked', error: '28P01' }, 'on TCP it is asked for a password, and refused');
    t.notOk(seen.query, 'and runs nothing');
  });

  // the owner, with the logins of the file: psql's way in
  const owner = new pg.Client({ host: endpoint.host, port: endpoint.port, user: endpoint.owner.user, password: endpoint.owner.password, database: 'postgres' });
  await owner.connect();
  t.teardown(() => owner.end().catch(() => undefined));
  const [{ n }] = (await owner.query(`select count(*)::int as n from "${schema}".transfers`)).rows as [{ n: number }];
  t.ok(n >= 0, `the owner reads (${n} transfers)`);

  // idx-query's connection reads, and cannot write
  const reader = await openPgliteSocketDb(dataDir, { maxConnections: 1 });
  t.teardown(() => reader.close());
  t.ok((await execute<{ n: number }>(reader.kysely, `select count(*)::int as n from "${schema}"._metadata`))[0]!.n > 0, "idx-query's login reads");
  await t.rejects(execute(reader.kysely, `update "${schema}".accounts set balance = 31337 returning id`), { code: '25006' }, 'and cannot UPDATE');
  await t.rejects(execute(reader.kysely, `create table "${schema}".stolen (x int)`), { code: '25006' }, 'nor CREATE');

  if (where === 'data folder') {
    // the slow reader: BEGIN, a lock, a statement every half second so that it is never idle
    const errors: Error[] = [];
    owner.on('error', (e) => errors.push(e));
    await owner.query('begin');
    await owner.query(`lock table "${schema}".accounts in access exclusive mode`);
    let attacking = true;
    const ticks = (async () => {
      while (attacking) {
        await new Promise((r) => setTimeout(r, 500));
        // dropped while a statement is in flight, the reason comes as that statement's error, and the
        // connection's own 'error' event says only that it ended
        await owner.query('select 1').catch((e: Error) => {
          errors.push(e);
          attacking = false;
        });
      }
    })();
    const from = await metaHeight(node.output());
    await client.request('anvil_mine', ['0x50']);
    const started = Date.now();
    await until('the node to index past the held transaction', async () => (await metaHeight(node.output())) >= from + 40, 30_000).catch(() => undefined);
    const took = Date.now() - started;
    attacking = false;
    await ticks;
    t.ok((await metaHeight(node.output())) >= from + 40, `the node indexed 40 more blocks in ${took} ms while a client held a transaction`);
    t.ok(
      errors.some((e) => /transaction open for more than 1 s while idx-node waited to write/.test(e.message)),
      'the client was told why it was dropped',
      { errors: errors.map((e) => e.message) },
    );
  }

  await owner.end().catch(() => undefined);
  await reader.close();
  node.child.kill('SIGTERM');
  t.equal((await node.exited).code, 0, 'the node stops cleanly');
  t.notOk(existsSync(file), 'the endpoint file goes with it');
  if ('path' in target) t.notOk(existsSync(target.path), 'and the socket');
  if (where === 'private folder') t.notOk(existsSync(endpoint.host), 'and its private folder');
}

t.test('socket in the data folder', (t) => check(t, 'data folder'));
t.test('project path too long for a socket name: a private folder', (t) => check(t, 'private folder'));
t.test('no folder short enough for a socket: TCP on 127.0.0.1, with a password', async (t) => {
  const longTmp = join(await mkdtemp(join(tmpdir(), 'idx-longtmp-')), 't'.repeat(110));
  await mkdir(longTmp, { recursive: true });
  t.teardown(() => rm(dirname(longTmp), { recursive: true, force: true }));
  await check(t, 'tcp', { TMPDIR: longTmp });
});

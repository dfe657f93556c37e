import { createClient } from 'graphql-ws';
import { basename, join } from 'node:path';
import type pg from 'pg';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { notifyChannel } from '../domain/entities/names.ts';
import { runNode } from '../apps/node/start-up/run-node.ts';
import { createLogger } from '../infra/logging/create-logger.ts';
import { DEPLOYMENTS_SCHEMA, DEPLOYMENTS_TABLE } from '../infra/postgres/deployment-pointer.ts';
import { execute, qualified, quoteIdent } from '../infra/postgres/sql.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { notifierFor } from './support/notify-client.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { freePortGuess } from './support/node-ports.ts';
import { nodeOptions } from './support/parsed-node-options.ts';
import { startProgram } from './support/program-process.ts';
import { patchStarterMapping } from './support/starter-mapping.ts';
import { uniqueSchemaName, type BackendKind } from './support/test-backends.ts';
import { exitWhenDone } from './support/exit-when-done.ts';

exitWhenDone();

/**
 * Issue 33 item 1 (docs/deploy.md "A new version beside the served one"): idx-query serves the
 * deployment name `-n app`; a second version with a changed handler indexes into `app_v2` with
 * `--promote app`, and once caught up the node moves the pointer. Under a query every 20 ms and a
 * subscription, idx-query switches without a restart: no failed or empty answer, the version-1
 * answers stop at the switch and version 2's follow, the subscription ends with DEPLOYMENT_SWITCHED
 * and a new one delivers from version 2.
 */
const { anvil, workload, built } = await setupErc20Chain(t, 6);

const QUERY = '{ transfers(first: 1, orderBy: ID_ASC) { totalCount nodes { id value } } }';
type Answer = { at: number; ok: boolean; kind: 'v1' | 'v2' | 'empty' | 'failed' | 'other'; detail?: string };

t.test('embedded database: --promote names the served folder, which must exist', async (t) => {
  const dir = await copyProject(t, built);
  const logger = createLogger({ level: 'silent', format: 'json', write: () => undefined });
  await t.rejects(
    runNode({
      options: nodeOptions(dir, anvil.url, ['--promote', join(dir, 'no-such-folder')]),
      logger,
      version: 'test',
      env: envFor('pglite'),
      signal: new AbortController().signal,
      settings: { stopAtHeight: workload.toBlock },
    }),
    { code: 'DEPLOYMENT_NOT_FOUND', message: /no-such-folder has no embedded database/ },
  );
});

for (const kind of BACKENDS) t.test(`${kind}: blue/green under load, zero failed queries`, (t) => blueGreen(t, kind));

/**
 * The same flow on both databases. PostgreSQL: the versions are schemas of one database, the
 * deployment a name (`-n`). Embedded: each version is a project folder with its own database, the
 * deployment the folder idx-query serves (`-f`), promoted to by its path.
 */
async function blueGreen(t: Test, kind: BackendKind): Promise<void> {
  const env = envFor(kind);
  const pg_ = kind === 'postgres';
  const v1Dir = await copyProject(t, built);
  const v2Dir = await copyProject(t, built);
  const name = pg_ ? uniqueSchemaName('idx_bg') : basename(v1Dir);
  const v2Schema = pg_ ? `${name}_v2` : basename(v2Dir);
  // a deployment: a name on PostgreSQL; on the embedded database the served folder
  const deployment = pg_ ? name : v1Dir;
  const schemaArgs = (schema: string) => (pg_ ? ['--db-schema', schema] : []);
  // version 2 writes every transfer's value one higher: its answers tell themselves apart
  await patchStarterMapping(v2Dir, (source) => {
    const patched = source.replace('value: amount,', 'value: amount + 1n,');
    if (patched === source) throw new Error('the Transfer value was not found in the starter mapping');
    return patched;
  });
  await rebuild(v2Dir);
  if (pg_)
    t.teardown(async () => {
      const db = await openDb('postgres', v1Dir);
      for (const s of [name, v2Schema]) await execute(db.kysely, `drop schema if exists ${quoteIdent(s)} cascade`);
      await execute(db.kysely, `delete from ${qualified(DEPLOYMENTS_SCHEMA, DEPLOYMENTS_TABLE)} where name = $1`, [name]).catch(() => undefined);
      await db.close();
    });

  const node = (dir: string, schema: string, extra: string[] = []) =>
    startProgram(
      'idx-node',
      ['-f', dir, '-p', String(freePortGuess()), '--network-endpoint', anvil.url, ...schemaArgs(schema), '--subscription', ...extra],
      env,
    );
  const v1 = node(v1Dir, name);
  t.teardown(() => v1.stop());
  const v1Port = Number((await v1.waitFor(/serving \/health.* on http:\/\/localhost:(\d+)/))[1]);
  await until(async () => (await ready(v1Port)) === true);

  const served = pg_ ? ['-n', name] : ['-f', v1Dir];
  const query = startProgram('idx-query', [...served, '--subscription', '--port', String(freePortGuess())], env);
  t.teardown(() => query.stop());
  const url = (await query.waitFor(/serving GraphQL .* at (http:\/\/localhost:\d+)\//))[1]!;
  const first = (await post(url)).body as { data: { transfers: { totalCount: number; nodes: { id: string; value: string }[] } } };
  const { id, value } = first.data.transfers.nodes[0]!;
  const total = first.data.transfers.totalCount;
  t.ok(total >= workload.transfers, `version 1 serves ${total} transfers`);
  const classify = (body: unknown): Pick<Answer, 'kind' | 'detail'> => {
    const b = body as { data?: { transfers?: { totalCount: number; nodes: { id: string; value: string }[] } }; errors?: unknown };
    if (b.errors !== undefined) return { kind: 'failed', detail: JSON.stringify(b.errors) };
    const tr = b.data?.transfers;
    if (tr === undefined || tr.totalCount === 0 || tr.nodes.length === 0) return { kind: 'empty', detail: JSON.stringify(body) };
    if (tr.totalCount !== total || tr.nodes[0]!.id !== id) return { kind: 'other', detail: JSON.stringify(body) };
    if (tr.nodes[0]!.value === value) return { kind: 'v1' };
    if (BigInt(tr.nodes[0]!.value) === BigInt(value) + 1n) return { kind: 'v2' };
    return { kind: 'other', detail: JSON.stringify(body) };
  };

  // one subscription, listening before anything moves (a probe on version 1's channel proves it);
  // probes go to each version's database: the same server on PostgreSQL, each node's socket embedded
  const ws = createClient({ url: url.replace(/^http/, 'ws') + '/', webSocketImpl: WebSocket, retryAttempts: 0, lazy: false });
  t.teardown(() => ws.dispose());
  const notifiers = new Map<string, pg.Client>();
  t.teardown(async () => {
    for (const c of notifiers.values()) await c.end().catch(() => undefined);
  });
  const probe = async (schema: string, dir: string) => {
    const key = pg_ ? '' : dir;
    if (!notifiers.has(key)) notifiers.set(key, await notifierFor(kind, dir));
    await notifiers
      .get(key)!
      .query('select pg_notify($1, $2)', [
        notifyChannel(schema, 'transfers'),
        JSON.stringify({ id: `probe-${schema}`, mutation_type: 'UPDATE', _entity: null }),
      ]);
  };
  const subscribe = () => {
    const s = { events: [] as string[], errors: [] as { message: string; extensions?: Record<string, unknown> }[], completed: false };
    ws.subscribe<{ transfers: { id: string } }>(
      { query: 'subscription { transfers { id mutation_type } }' },
      {
        next: (r) => (r.errors ? s.errors.push(...(r.errors as never[])) : s.events.push(r.data!.transfers.id)),
        error: (e) => s.errors.push(...(Array.isArray(e) ? e : [e as never])),
        complete: () => (s.completed = true),
      },
    );
    return s;
  };
  const sub = subscribe();
  await until(async () => {
    await probe(name, v1Dir);
    await sleep(100);
    return sub.events.includes(`probe-${name}`);
  });

  // the load: a query every 20 ms over HTTP, each answer classified
  const answers: Answer[] = [];
  let loading = true;
  const load = (async () => {
    while (loading) {
      const at = performance.now();
      const res = await post(url).catch((err: unknown) => ({ status: 0, body: { errors: [String(err)] } }));
      answers.push({ at, ok: res.status === 200, ...classify(res.body) });
      await sleep(Math.max(0, 20 - (performance.now() - at)));
    }
  })();

  // version 2 beside it, promoting itself once caught up
  await sleep(300);
  const v2 = node(v2Dir, v2Schema, ['--promote', deployment]);
  t.teardown(() => v2.stop());
  const promotedLine = await v2.waitFor(/promoted: the deployment "([^"]+)" now serves schema "([^"]+)"(?: in (\S+))?(?: \(was "([^"]+)")?/, 60_000);
  const promotedAt = performance.now();
  t.same(promotedLine.slice(1), [deployment, v2Schema, pg_ ? undefined : v2Dir, pg_ ? name : undefined], 'the node says what it promoted');
  const switched = await query.waitFor(/switched in (\d+) ms/, 30_000);
  await until(async () => answers.some((a) => a.kind === 'v2'));
  const firstV2 = answers.find((a) => a.kind === 'v2')!.at;
  await sleep(1000);
  loading = false;
  await load;

  const count = (k: Answer['kind']) => answers.filter((a) => a.kind === k).length;
  const bad = answers.filter((a) => !a.ok || a.kind === 'failed' || a.kind === 'empty' || a.kind === 'other');
  t.comment(
    `${kind}: ${answers.length} queries (${count('v1')} version 1, ${count('v2')} version 2); failed ${bad.length}; idx-query switched ${switched[1]} ms after hearing the promotion; first version-2 answer ${Math.round(firstV2 - promotedAt)} ms after the node's log line was read`,
  );
  t.same(
    bad.map((a) => a.detail),
    [],
    'no failed, empty or unexpected answer',
  );
  t.ok(count('v1') > 0 && count('v2') > 0, 'answers from both sides of the switch');
  const lastV1 = answers.map((a) => a.kind).lastIndexOf('v1');
  const firstV2Index = answers.findIndex((a) => a.kind === 'v2');
  t.ok(lastV1 < firstV2Index, 'once version 2 answers, version 1 never does again');

  // the subscription ended with the documented error; a new one listens on version 2
  await until(async () => sub.errors.length > 0);
  t.match(sub.errors[0], {
    message: /now serves schema .*subscribe again/,
    extensions: { code: 'DEPLOYMENT_SWITCHED', deployment: name, schema: v2Schema, previous: name },
  });
  const again = subscribe();
  await until(async () => {
    await probe(v2Schema, v2Dir);
    await sleep(100);
    return again.events.includes(`probe-${v2Schema}`);
  });
  t.pass('a new subscription delivers version 2’s changes');
  t.same(again.errors, []);

  // a rollback by hand; version 2's node restarted with --promote does not undo it
  const promoteBy = (dir: string, schema: string) =>
    startProgram('idx-node', ['promote', '--name', deployment, ...(pg_ ? ['--db-schema', schema] : ['-f', dir])], env);
  const back = promoteBy(v1Dir, name);
  t.equal(await back.exited, 0, back.output());
  await until(async () => classify((await post(url)).body).kind === 'v1');
  t.pass('idx-node promote rolls back to version 1');
  t.equal(await v2.stop(), 0, 'version 2’s node stops');
  const v2Again = node(v2Dir, v2Schema, ['--promote', deployment]);
  t.teardown(() => v2Again.stop());
  await v2Again.waitFor(/was promoted to "[^"]+" at an earlier start; not again/, 60_000);
  t.equal(classify((await post(url)).body).kind, 'v1', 'a restarted node does not promote twice');
  const forward = promoteBy(v2Dir, v2Schema);
  t.equal(await forward.exited, 0, forward.output());
  await until(async () => classify((await post(url)).body).kind === 'v2');

  // the old version stays until dropped; the live one cannot be
  t.equal(await v1.stop(), 0, 'version 1’s node stops');
  const cleanOld = startProgram('idx-node', ['force-clean', '-f', v1Dir, ...schemaArgs(name)], env);
  t.equal(await cleanOld.exited, 0, cleanOld.output());
  const after = (await post(url)).body;
  t.equal(classify(after).kind, 'v2', 'still serving version 2 after the old version is dropped');
  await ws.dispose();
  t.equal(await query.stop(), 0);
  // (on the embedded database, force-clean opens the folder's database itself: its node must be stopped)
  t.equal(await v2Again.stop(), 0);
  const cleanLive = startProgram('idx-node', ['force-clean', '-f', v2Dir, ...schemaArgs(v2Schema)], env);
  t.equal(await cleanLive.exited, 1);
  t.match(cleanLive.output(), /DEPLOYMENT_LIVE|is served as the deployment/);
}

async function post(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: QUERY }) });
  return { status: res.status, body: await res.json() };
}

async function ready(port: number): Promise<boolean> {
  return fetch(`http://127.0.0.1:${port}/ready`).then(
    (r) => r.ok,
    () => false,
  );
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(ok: () => Promise<boolean>, ms = 60_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out after ${ms} ms`);
    await sleep(100);
  }
}

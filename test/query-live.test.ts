import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createClient } from 'graphql-ws';
import t, { type Test } from 'tap';
import WebSocket from 'ws';
import { notifyChannel } from '../domain/entities/names.ts';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { findPgliteSocket } from '../infra/postgres/pglite-socket-endpoint.ts';
import { uniqueSchemaName, type BackendKind } from './support/test-backends.ts';
import { BACKENDS, envFor, openDb } from './support/node-backends.ts';
import { setupErc20Chain } from './support/erc20-chain.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { startProgram } from './support/program-process.ts';
import { copyProject, rebuild } from './support/project-copies.ts';
import { freePortGuess } from './support/node-ports.ts';
import { gqlData } from './support/query-client.ts';
import { notifierFor } from './support/notify-client.ts';

/**
 * The live side of idx-query as a user runs it: `idx-node --subscription` (a CLI process) indexes
 * anvil while `idx-query --subscription` (another CLI process) answers queries and subscriptions
 * receive the node's INSERTs, UPDATEs and DELETEs. On PGlite the query service reaches the
 * node's embedded database through the socket the node serves in its data folder.
 */
const { anvil, client, workload, built } = await setupErc20Chain(t, 6);

// the compiled programs, run as a user runs them
const start = startProgram;

async function metaHeight(port: number): Promise<number | undefined> {
  const meta = (await fetch(`http://127.0.0.1:${port}/meta`)
    .then((r) => r.json())
    .catch(() => undefined)) as { lastProcessedHeight?: number } | undefined;
  return meta?.lastProcessedHeight;
}

async function until(what: string, ok: () => Promise<boolean>, ms = 120_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

type Payload = { id: string; mutation_type: 'INSERT' | 'UPDATE' | 'DELETE'; _entity: Record<string, unknown> | null };
const PROBE = '__probe';

/** Every fifth block adds a StarterEntity (id = the height); every tenth removes the one five blocks back: DELETEs to see. */
async function removeStarterEntities(dir: string): Promise<void> {
  const file = join(dir, 'src', 'mappings', 'blocks.ts');
  const source = await readFile(file, 'utf8');
  const patched = source.replace(
    /export async function handleBlock\([^)]*\)[^{]*\{[\s\S]*?\n\}/,
    `export async function handleBlock(block: EthereumBlock): Promise<void> {
  await StarterEntity.create({ id: String(block.number), blockHeight: BigInt(block.number) }).save();
  if (block.number % 10 === 0) await store.remove("StarterEntity", String(block.number - 5));
}`,
  );
  if (patched === source) throw new Error('handleBlock not found in the starter mapping');
  await writeFile(file, patched);
  await rebuild(dir);
}

const projectDir = await copyProject(t, built);
await removeStarterEntities(projectDir);

t.test('idx-query without DB_HOST and no node running: a clear error', async (t) => {
  const q = start('idx-query', ['-f', projectDir, '--port', String(freePortGuess())], {});
  t.equal(await q.exited, 1);
  t.match(q.output(), /no idx-node is serving it.*Start idx-node on the project first/s);
});

for (const kind of BACKENDS) {
  t.test(`${kind}: queries and subscriptions while idx-node indexes`, (t) => live(t, kind));
}

async function live(t: Test, kind: BackendKind): Promise<void> {
  // one project folder: PostgreSQL runs use their own schema and leave .idx-data alone
  const dir = projectDir;
  const schema = uniqueSchemaName('idx_live');
  const env = envFor(kind);
  const node = start('idx-node', ['-f', dir, '-p', String(freePortGuess()), '--network-endpoint', anvil.url, '--db-schema', schema, '--subscription'], env);
  t.teardown(() => node.stop());
  // the port it serves on: the one asked for, or the next free one when another process held it
  const nodePort = Number((await node.waitFor(/serving \/health.* on http:\/\/localhost:(\d+)/))[1]);
  if (kind === 'postgres') {
    // after the node stops (teardowns run in order): the suite's PostgreSQL keeps no schema of this test
    t.teardown(async () => {
      const db = await openDb('postgres', dir);
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).finally(() => db.close());
    });
  }
  await until('the node to index the first workload', async () => ((await metaHeight(nodePort)) ?? 0) >= workload.toBlock);

  const query = start('idx-query', ['-f', dir, '-n', schema, '--subscription', '--port', String(freePortGuess())], env);
  t.teardown(() => query.stop());
  const url = (await query.waitFor(/serving GraphQL .* at (http:\/\/localhost:\d+)\//))[1]!;
  if (kind === 'pglite') t.match(query.output(), /embedded database of idx-node \(pid \d+\)/, "the query service reads the node's embedded database");

  const first = await gqlData<{ transfers: { totalCount: number } }>(url, '{ transfers { totalCount } }');
  t.ok(first.transfers.totalCount >= workload.transfers, `answers queries (${first.transfers.totalCount} transfers)`);

  // subscribe, and make sure each listens before the chain moves
  const ws = createClient({ url: url.replace(/^http/, 'ws') + '/', webSocketImpl: WebSocket, retryAttempts: 0 });
  t.teardown(() => ws.dispose());
  const streams = {
    transfers: { query: 'subscription { transfers { id mutation_type _entity { blockHeight value from { id } } } }', events: [] as Payload[] },
    accounts: { query: 'subscription { accounts(mutation: [UPDATE]) { id mutation_type _entity { balance } } }', events: [] as Payload[] },
    starterEntities: { query: 'subscription { starterEntities { id mutation_type _entity { blockHeight } } }', events: [] as Payload[] },
  };
  const errors: unknown[] = [];
  for (const s of Object.values(streams)) {
    ws.subscribe<Record<string, Payload>>(
      { query: s.query },
      { next: (r) => (r.errors ? errors.push(r.errors) : s.events.push(Object.values(r.data!)[0]!)), error: (e) => errors.push(e), complete: () => undefined },
    );
  }
  const notifier = await notifierFor(kind, dir);
  t.teardown(() => notifier.end().catch(() => undefined));
  await until(
    'the subscriptions to listen',
    async () => {
      for (const table of ['transfers', 'accounts', 'starter_entities']) {
        await notifier.query('select pg_notify($1, $2)', [notifyChannel(schema, table), JSON.stringify({ id: PROBE, mutation_type: 'UPDATE', _entity: null })]);
      }
      await new Promise((r) => setTimeout(r, 200));
      return Object.values(streams).every((s) => s.events.some((p) => p.id === PROBE));
    },
    30_000,
  );
  await new Promise((r) => setTimeout(r, 300));
  for (const s of Object.values(streams)) s.events.splice(0, s.events.length, ...s.events.filter((p) => p.id !== PROBE));
  // the node is idle here: nothing past the first workload is final yet
  const listenedFrom = (await metaHeight(nodePort))!;

  // the chain moves on: the node indexes new blocks while the subscriptions listen
  const more = await makeErc20Workload(client, {
    token: workload.token,
    blocks: 12,
    transfersPerBlock: 5,
    approvalsPerBlock: 1,
    senders: 10,
    recipients: 100,
    seed: 7,
  });
  await client.request('anvil_mine', ['0x40']);
  await until('the node to index the new blocks', async () => ((await metaHeight(nodePort)) ?? 0) >= more.toBlock);
  const inRange = (p: Payload) => Number(p._entity?.blockHeight) >= more.fromBlock && Number(p._entity?.blockHeight) <= more.toBlock;
  await until('the transfer events', async () => streams.transfers.events.filter(inRange).length >= more.transfers, 30_000);
  await new Promise((r) => setTimeout(r, 500));

  const transfers = streams.transfers.events.filter(inRange);
  t.equal(transfers.length, more.transfers, 'one INSERT per new Transfer');
  t.ok(
    transfers.every(
      (p) => p.mutation_type === 'INSERT' && typeof p._entity?.value === 'string' && typeof (p._entity?.from as { id?: string })?.id === 'string',
    ),
    'with the row and its relations',
  );
  t.equal(new Set(transfers.map((p) => p.id)).size, transfers.length, 'no transfer twice');

  // the last UPDATE of each account carries its balance now
  const lastBalance = new Map<string, string>();
  for (const p of streams.accounts.events) lastBalance.set(p.id, String(p._entity?.balance));
  t.ok(
    streams.accounts.events.length > 0 && streams.accounts.events.every((p) => p.mutation_type === 'UPDATE'),
    `account UPDATEs (${streams.accounts.events.length})`,
  );
  const some = [...lastBalance.keys()].slice(0, 5);
  for (const id of some) {
    const { account } = await gqlData<{ account: { balance: string } }>(url, 'query ($id: String!) { account(id: $id) { balance } }', { id });
    t.equal(lastBalance.get(id), account.balance, `account ${id.slice(0, 10)}: the last UPDATE shows the balance the query answers`);
  }

  const starters = streams.starterEntities.events;
  const indexedTo = (await metaHeight(nodePort))!;
  const expectedDeletes: string[] = [];
  for (let h = listenedFrom + 1; h <= indexedTo; h++) if (h % 10 === 0) expectedDeletes.push(String(h - 5));
  const deletes = starters.filter((p) => p.mutation_type === 'DELETE').map((p) => p.id);
  t.ok(expectedDeletes.length > 0, `blocks ${listenedFrom + 1}..${indexedTo} removed StarterEntities`);
  t.same(deletes, expectedDeletes, 'a DELETE for each removed StarterEntity, in order');
  t.ok(
    starters.some((p) => p.mutation_type === 'INSERT'),
    'and INSERTs for the new ones',
  );
  t.same(errors, [], 'no subscription errors');

  await ws.dispose();
  await notifier.end();
  t.equal(await query.stop(), 0, 'idx-query stops cleanly');
  t.equal(await node.stop(), 0, 'idx-node stops cleanly');
  if (kind === 'pglite') await t.rejects(findPgliteSocket(join(dir, '.idx-data')), { code: 'EMBEDDED_NODE_NOT_RUNNING' }, 'the socket goes with the node');
}

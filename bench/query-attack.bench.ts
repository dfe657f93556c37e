import { spawn } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { StoreOperation } from '../domain/entities/entity-store.ts';
import type { EntityModel } from '../domain/entities/entity-model.ts';
import { createDb } from '../infra/postgres/create-db.ts';
import { createEntityStore } from '../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../infra/postgres/prepare-project-schema.ts';
import { execute, quoteIdent } from '../infra/postgres/sql.ts';
import { envFor } from '../test/support/node-backends.ts';
import { uniqueSchemaName } from '../test/support/test-backends.ts';
import { entity, schemaModel } from '../test/support/test-models.ts';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import type { Benchmark } from './run.ts';
import { untilHealthy } from './query-p50.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import { HUGE_SEARCHES } from '../test/support/hostile-searches.ts';

/**
 * `npm run bench -- attack`: idx-query (the CLI, default flags plus --subscription, its own
 * process) under CLIENTS hostile clients for SECONDS, each cycling through 1 MB `__schema` alias
 * floods over HTTP and graphql-ws, 3.7 MB websocket messages, 1 MB of nesting, GraphiQL's
 * introspection query made unique per request (no cache), the largest answer the limits
 * admit (~14 MB), and full-text search strings that once held the event loop for a minute
 * (searchAttacks), over a schema of 33 entities. Meanwhile a trivial query every 100 ms. Prints the process's peak RSS
 * (VmHWM), the trivial query's latencies and whether the process stayed up.
 */
const CLIENTS = Number(process.env.BENCH_ATTACK_CLIENTS ?? 6);
const SECONDS = Number(process.env.BENCH_ATTACK_SECONDS ?? 20);

const model = schemaModel([
  entity('Account', { name: 'String', balance: 'BigInt' }),
  searchableEntity(),
  entity('Transfer', { from: { type: { kind: 'entity', entity: 'Account' } }, value: 'BigInt', note: 'String' }),
  // a schema the size of a real project's (~30 entities), so that introspection costs what it would there
  ...Array.from({ length: 30 }, (_v, i) =>
    entity(`Extra${i}`, {
      account: { type: { kind: 'entity', entity: 'Account' } },
      a: 'String',
      b: 'Int',
      c: 'BigInt',
      d: 'Float',
      e: 'Boolean',
      f: 'Date',
      g: 'String',
    }),
  ),
]);

/** `Post @fullText(fields: ["title"])`: the entity the search attacks search (searchPosts) */
function searchableEntity(): EntityModel {
  const post = entity('Post', { title: 'String' });
  return { ...post, fullText: { fields: ['title'], columns: ['title'], language: 'english' } };
}

/**
 * The full-text search strings that held idx-query's event loop (26 s for "&" × 100,000, 83 s for
 * ":" × 200,000) or overflowed its stack before the search was bounded and read in one pass
 * (issue 27), and pg-tsquery's cubic case within the bound: each one request.
 */
function searchAttacks(post: (body: string) => Promise<void>): (() => Promise<void>)[] {
  const query = 'query($s: String!) { searchPosts(search: $s) { totalCount } }';
  return [...HUGE_SEARCHES.map(([, s]) => s), `fox)${'&'.repeat(996)}`].map((s) => () => post(JSON.stringify({ query, variables: { s } })));
}

async function run(): Promise<void> {
  if (!process.env.DB_HOST) {
    console.log('skipped: needs PostgreSQL (set DB_HOST, DB_PORT, DB_USER, DB_DATABASE)');
    return;
  }
  const env = envFor('postgres');
  const schema = uniqueSchemaName('idx_bench_attack');
  const db = await createDb({ env });
  try {
    const options = { schema, historical: true, timestampField: true };
    await prepareProjectSchema(db.kysely, model, options);
    const store = createEntityStore({ db: db.kysely, schema, model, historical: true, timestampField: true });
    await store.setMetadata({ schema: model });
    const set = (e: string, id: string, height: number, data: Record<string, unknown>): StoreOperation => ({
      entity: e,
      id,
      height,
      op: 'set',
      data: { id, ...data },
    });
    await store.flush({ operations: Array.from({ length: 1000 }, (_v, i) => set('Account', `a${i}`, 1, { name: `n${i}`, balance: BigInt(i) })) });
    await store.flush({
      operations: Array.from({ length: 100 }, (_v, i) => set('Transfer', `t${i}`, 2, { fromId: `a${i}`, value: 1n, note: String(i % 10).repeat(70_000) })),
    });

    const port = await deadPort();
    const child = spawn(
      process.execPath,
      ['--no-node-snapshot', BIN('idx-query'), '-n', schema, '--port', String(port), '--subscription', '--log-level', 'warn'],
      {
        env: programEnv(env),
        stdio: ['ignore', 'inherit', 'inherit'],
      },
    );
    let exit: string | undefined;
    const exited = new Promise<void>((r) => child.once('exit', (code, signal) => ((exit = `exit ${code ?? signal}`), r())));
    const url = `http://127.0.0.1:${port}/`;
    try {
      await untilHealthy(url, child);
      const status = async (key: string) =>
        Number(/(\d+)/.exec((await readFile(`/proc/${child.pid}/status`, 'utf8')).split('\n').find((l) => l.startsWith(key)) ?? '')?.[1] ?? 0) / 1024;
      console.log(`idx-query started: RSS ${(await status('VmRSS:')).toFixed(0)} MB; ${CLIENTS} attacking clients for ${SECONDS} s`);

      const flood = `{ ${Array.from({ length: 26_000 }, (_v, i) => `a${i}: __schema { types { name } }`).join(' ')} }`.slice(0, 1_000_000 - 64) + ' }';
      const deep = `{ ${'{'.repeat(900_000)} }`;
      const huge = JSON.stringify({ id: '1', type: 'subscribe', payload: { query: `{ __typename ${' '.repeat(3_700_000)} }` } });
      const biggest = '{ a: transfers(first: 100) { nodes { id note } } b: transfers(first: 100) { nodes { id note } } }';
      const postBody = (body: string) =>
        fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then(
          (r) => r.text(),
          () => '',
        );
      const post = (query: string) => postBody(JSON.stringify({ query }));
      const rawWs = () =>
        new Promise<void>((resolve) => {
          const ws = new WebSocket(`ws://127.0.0.1:${port}/`, 'graphql-transport-ws');
          ws.on('open', () => ws.send(JSON.stringify({ type: 'connection_init' })));
          ws.on('message', () => ws.send(huge));
          ws.on('close', () => resolve());
          ws.on('error', () => resolve());
        });
      let stop = false;
      let attacks = 0;
      const codes = new Map<string, number>();
      const note = (body: string) => {
        const code = /"code":"([A-Z_]+)"/.exec(body)?.[1] ?? (body.startsWith('{"data"') ? 'data' : 'other');
        codes.set(code, (codes.get(code) ?? 0) + 1);
      };
      const client = async (i: number) => {
        const ws = createClient({ url: `ws://127.0.0.1:${port}/`, webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
        const overWs = (query: string) =>
          new Promise<void>((resolve) =>
            ws.subscribe({ query }, { next: (r) => note(JSON.stringify(r)), error: (e) => (note(JSON.stringify(e)), resolve()), complete: resolve }),
          );
        for (let n = 0; !stop; n++) {
          const steps = [
            () => post(flood).then(note),
            () => overWs(flood),
            () => rawWs(),
            () => post(deep).then(note),
            () => post(`# ${i}.${n}\n${getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true })}`).then(note),
            () => overWs(`# ${i}.${n}\n${getIntrospectionQuery()}`),
            () => post(biggest).then(note),
            ...searchAttacks((body) => postBody(body).then(note)),
          ];
          await steps[(n + i) % steps.length]!();
          attacks++;
        }
        await ws.dispose();
      };
      const clients = Array.from({ length: CLIENTS }, (_v, i) => client(i));
      const latencies: number[] = [];
      let failed = 0;
      const until = Date.now() + SECONDS * 1000;
      while (Date.now() < until && exit === undefined) {
        const t0 = performance.now();
        const body = await post('{ accounts(first: 1) { totalCount } }');
        latencies.push(performance.now() - t0);
        if (!body.includes('"totalCount":1000')) failed++;
        await new Promise((r) => setTimeout(r, 100));
      }
      stop = true;
      await Promise.all(clients);
      latencies.sort((a, b) => a - b);
      const peak = exit === undefined ? await status('VmHWM:') : NaN;
      console.log(`  ${attacks} attack requests; answers: ${[...codes].map(([c, n]) => `${c} ${n}`).join(', ')}`);
      console.log(
        `  trivial query: ${latencies.length} requests, ${failed} failed, p50 ${latencies[Math.floor(latencies.length / 2)]!.toFixed(0)} ms, ` +
          `p99 ${latencies[Math.floor(latencies.length * 0.99)]!.toFixed(0)} ms, max ${latencies.at(-1)!.toFixed(0)} ms`,
      );
      console.log(`  idx-query ${exit === undefined ? 'stayed up' : `died (${exit})`}; peak RSS ${peak.toFixed(0)} MB`);
      console.log(`  worst trivial query ${latencies.at(-1)!.toFixed(0)} ms: ${latencies.at(-1)! < 1000 ? 'under' : 'OVER'} 1 s throughout`);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  } finally {
    await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`).catch(() => {});
    await db.close();
  }
}

const bench: Benchmark = { name: 'query-attack', run };
export default bench;

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseShardArgs } from '../../apps/shard/shard-options.ts';
import { runShard } from '../../apps/shard/run-shard.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import type { ShardStore } from '../../infra/postgres/shard-store.ts';
import { createDb } from '../../infra/postgres/create-db.ts';
import { loadOrCreateJwtSecret, signJwt } from '../../infra/rpc/jwt-auth.ts';
import { execute, quoteIdent } from '../../infra/postgres/sql.ts';
import { freshPgliteDir, uniqueSchemaName, type BackendKind } from './test-backends.ts';
import { envFor } from './node-backends.ts';
import type { Teardown } from './teardown.ts';

export interface TestShard {
  url: string;
  /** the admin endpoint (loopback, JWT-authenticated) */
  adminUrl: string;
  /** the admin endpoint's secret */
  adminSecret: Buffer;
  /** the whole response of one call to the admin endpoint, with a fresh token */
  admin(method: string, params?: unknown[]): Promise<any>;
  /** the shard's storage, as its owner: also where a restart finds its data */
  where: { kind: BackendKind; dataDir: string; schema: string };
  store: ShardStore;
  /** resolves once the data outside the range is removed */
  pruned(): Promise<void>;
  /** log lines so far */
  lines: string[];
  stop(): Promise<void>;
}

export interface ShardPlace {
  kind: BackendKind;
  dataDir: string;
  schema: string;
}

/** A fresh place for a shard's data (a PGlite folder or a PostgreSQL schema), removed on teardown. */
export async function shardPlace(t: Teardown, kind: BackendKind): Promise<ShardPlace> {
  const dataDir = await freshPgliteDir();
  const schema = uniqueSchemaName('idx_shard_test');
  t.teardown(async () => {
    await rm(dataDir, { recursive: true, force: true });
    if (kind === 'postgres') {
      const db = await createDb({ env: envFor(kind) });
      await execute(db.kysely, `drop schema if exists ${quoteIdent(schema)} cascade`);
      await db.close();
    }
  });
  return { kind, dataDir, schema };
}

const randomPort = () => String(20000 + Math.floor(Math.random() * 20000));

/** idx-shard run in this process, on `place`, with the command-line `args` and an admin endpoint; stopped on teardown. */
export async function startShard(t: Teardown, upstream: string, place: ShardPlace, args: readonly string[] = []): Promise<TestShard> {
  const secretDir = await mkdtemp(join(tmpdir(), 'idx-shard-secret-'));
  t.teardown(() => rm(secretDir, { recursive: true, force: true }));
  const secretFile = join(secretDir, 'jwt.hex');
  const adminSecret = (await loadOrCreateJwtSecret(secretFile)).secret;
  const cmd = parseShardArgs(
    [
      '--upstream',
      upstream,
      '--data-dir',
      place.dataDir,
      '--db-schema',
      place.schema,
      '-p',
      randomPort(),
      '--admin-port',
      randomPort(),
      '--admin-secret-file',
      secretFile,
      '--poll-interval',
      '50',
      ...args,
    ],
    { version: 'test', write: () => {} },
  );
  if (cmd.command !== 'run') throw new Error('expected a run command');
  const lines: string[] = [];
  const logger = createLogger({ level: 'info', format: 'json', write: (l) => void lines.push(l) });
  const controller = new AbortController();
  type Listening = { port: number; shard: { pruned(): Promise<void>; store: ShardStore; adminPort?: number } };
  let onListening!: (v: Listening) => void;
  const listening = new Promise<Listening>((resolve) => (onListening = resolve));
  const running = runShard({
    options: cmd.options,
    logger,
    env: envFor(place.kind),
    signal: controller.signal,
    onListening: (port, shard) => onListening({ port, shard }),
  });
  const started = await Promise.race([listening, running.then(() => Promise.reject(new Error(`idx-shard stopped before listening:\n${lines.join('')}`)))]);
  let stopping: Promise<void> | undefined;
  const stop = () => {
    stopping ??= (async () => {
      controller.abort();
      await running;
    })();
    return stopping;
  };
  t.teardown(stop);
  const adminUrl = `http://127.0.0.1:${started.shard.adminPort}`;
  const admin = async (method: string, params: unknown[] = []) =>
    (await post(adminUrl, { jsonrpc: '2.0', id: nextId++, method, params }, { authorization: `Bearer ${signJwt(adminSecret)}` })).json;
  return {
    url: `http://127.0.0.1:${started.port}`,
    adminUrl,
    adminSecret,
    admin,
    where: place,
    store: started.shard.store,
    pruned: started.shard.pruned,
    lines,
    stop,
  };
}

export interface RpcAnswer {
  status: number;
  text: string;
  json: any;
}

/** One JSON-RPC request body (a call or a batch) posted as is. */
export async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, text, json: text === '' ? undefined : JSON.parse(text) };
}

let nextId = 1;
/** The whole response of one call. */
export async function call(url: string, method: string, params: unknown[] = []): Promise<any> {
  return (await post(url, { jsonrpc: '2.0', id: nextId++, method, params })).json;
}

/** Waits until the shard's newest block is at least `height`. */
export async function waitForHeight(url: string, height: number, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const answer = await call(url, 'eth_blockNumber').catch(() => undefined);
    if (answer?.result !== undefined && Number(answer.result) >= height) return;
    if (Date.now() > deadline) throw new Error(`the shard at ${url} did not reach block ${height} within ${timeoutMs} ms (at ${answer?.result})`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

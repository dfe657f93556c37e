import { randomInt } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { listenSocket } from './listen-socket.ts';
import { errorResponse, greeting, int32, message, cstring } from './pg-wire.ts';
import { createScramSecret } from './scram-server.ts';
import { endWithReason, newClient, type Client, type SocketSession, type SocketUser } from './socket-client.ts';
import { runClient } from './socket-client-run.ts';
import { receive, type Receiver } from './socket-client-receive.ts';
import { loginStep } from './socket-login.ts';
import { createSocketChannels } from './socket-channels.ts';
import { settingsSql } from './socket-session-sql.ts';
import { createTransactionYield } from './transaction-yield.ts';

export { parseListen } from './socket-session-sql.ts';

/**
 * Serves one in-process PGlite to other processes over the PostgreSQL wire protocol, so that
 * `idx-query` (with `pg`) can read the database the node owns in embedded mode.
 *
 * Written here because `@electric-sql/pglite-socket` pins exact peer versions we cannot install,
 * and because it must share the node's lock. PGlite is one backend session, so every user takes
 * turns on it:
 * - a client's messages run as whole units (up to Sync or a simple Query), inside `exclusive`,
 *   the same lock the node's kysely driver holds from `begin` to `commit`: a client's statement
 *   never runs inside the node's open transaction, and the node's never inside a client's;
 * - a client that opens a transaction keeps the session until it ends it (or disconnects, which
 *   rolls it back, or idles in it too long, which rolls it back and drops the client);
 * - session settings are per client: its startup parameters (pg's `statement_timeout`, `options`
 *   with `-c name=value`) and its own SETs are applied while it holds the session, and `RESET ALL`
 *   runs when it lets go, so nothing leaks to the node or to another client;
 * - LISTEN/UNLISTEN are kept per client: the session listens on the union of the channels, and
 *   each notification goes to the clients that listen on its channel (PGlite hands them to
 *   `onNotification` whichever statement's output they came in).
 * - every login gives a password (SCRAM-SHA-256, as PostgreSQL asks it); a read-only login runs
 *   its statements with `default_transaction_read_only` on and may not turn it off (reader-sql.ts);
 * - a message, and the messages up to a Sync, are at most `maxMessageBytes`: a larger declared
 *   length is refused at once, before any of it is kept;
 * - a client's transaction yields to the others: once someone waits for the session (the node's
 *   flush), a transaction older than `maxTransactionMs` is rolled back and its client dropped.
 * Not supported: COPY FROM STDIN, and LISTEN hidden among other statements in one query string.
 * A statement, once running, cannot be interrupted (PGlite runs it synchronously, without timers).
 */

export interface PgliteSocketServerOptions {
  pglite: PGlite;
  /**
   * Runs `fn` while nobody else uses the session: for the node, its kysely connection
   * (`kysely.connection().execute(() => fn())`), which its transactions hold throughout.
   */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** a Unix socket path, or a TCP host and port (0 picks a free one) */
  listen: { path: string } | { host: string; port: number };
  /** who may log in; a user not named here is refused */
  users: readonly SocketUser[];
  /** how many wait for the session (the node's `pgliteWaiting`): a client's long transaction yields to them */
  waiting?: () => number;
  /** a client idle inside a transaction this long is rolled back and dropped (default 60 s) */
  idleInTransactionMs?: number;
  /** a client's transaction this old is rolled back, and the client dropped, as soon as someone waits for the session (default 1 s) */
  maxTransactionMs?: number;
  /** the largest message, and the largest run of messages up to a Sync, a client may send (default {@link MAX_MESSAGE_BYTES}) */
  maxMessageBytes?: number;
  /** a connection that has not logged in after this long is closed (default 30 s) */
  loginTimeoutMs?: number;
  onError?: (err: Error) => void;
}

export type { SocketUser } from './socket-client.ts';

/** The largest message a client may send: 16 MiB (a GraphQL request's SQL is far smaller; PostgreSQL's own cap is 1 GB). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;

export interface PgliteSocketServer {
  /** where clients connect: the socket path, or the TCP host and port */
  readonly address: { path: string } | { host: string; port: number };
  /** open client connections */
  readonly connections: number;
  close(): Promise<void>;
}

export async function createPgliteSocketServer(options: PgliteSocketServerOptions): Promise<PgliteSocketServer> {
  const { pglite, exclusive } = options;
  const idleInTransactionMs = options.idleInTransactionMs ?? 60_000;
  const maxTransactionMs = options.maxTransactionMs ?? 1000;
  const maxMessageBytes = options.maxMessageBytes ?? MAX_MESSAGE_BYTES;
  const loginTimeoutMs = options.loginTimeoutMs ?? 30_000;
  const yieldRule = createTransactionYield(maxTransactionMs, options.waiting ?? (() => 0));
  const users = new Map(options.users.map((u) => [u.name, u]));
  // derived once per server run: a login then costs two HMACs
  const secrets = new Map(options.users.map((u) => [u.name, createScramSecret(u.password)]));
  const clients = new Set<Client>();
  const secret = randomInt(2 ** 31);
  const channels = createSocketChannels(pglite, raw, exclusive);
  const session: SocketSession = {
    pglite,
    exclusive,
    raw,
    channels,
    yieldRule,
    idleInTransactionMs,
    maxTransactionMs,
    maxMessageBytes,
    fail,
    onError: options.onError,
  };
  const receiver: Receiver = {
    maxMessageBytes,
    admit(c, params) {
      const name = params.get('user') ?? '';
      const user = users.get(name);
      if (user === undefined) {
        fail(c, `password authentication failed for user "${name}"`, '28P01');
        return false;
      }
      c.user = user;
      c.secret = secrets.get(name);
      c.settings = settingsSql(params);
      return true;
    },
    login,
    close: (c) => close(c),
    fail,
    start: (c) => void runClient(session, c),
  };

  const [info] = await exclusive(
    async () => (await pglite.query<{ v: string; tz: string }>(`select current_setting('server_version') as v, current_setting('TimeZone') as tz`)).rows,
  );
  const server = { version: info?.v ?? '16', timeZone: info?.tz ?? 'UTC', pid: process.pid, secret };

  const listening: Server = createServer((socket) => {
    const client = newClient(socket);
    clients.add(client);
    client.loginTimer = setTimeout(() => fail(client, `no login within ${loginTimeoutMs / 1000} s`, '08P01'), loginTimeoutMs);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      if (client.closed) return;
      client.queue.push(chunk);
      try {
        receive(receiver, client);
      } catch (err) {
        fail(client, (err as Error).message);
      }
    });
    socket.on('error', () => close(client));
    socket.on('close', () => close(client));
  });

  /** The SCRAM exchange (socket-login.ts); once done, the greeting. */
  function login(c: Client, type: string, body: Buffer): void {
    const step = loginStep(c.secret!, c.scram, type, body);
    if (step === undefined) return fail(c, `password authentication failed for user "${c.user!.name}"`, '28P01');
    if ('exchange' in step) {
      c.scram = step.exchange;
      c.socket.write(step.reply);
      return;
    }
    clearTimeout(c.loginTimer);
    c.phase = 'ready';
    c.socket.write(Buffer.concat([step.done, greeting(server, c.user!)]));
  }

  // PGlite's own locks too: its transaction lock (held by any `pglite.transaction()` for its whole
  // length) and its query lock (what `query`/`exec` take; `execProtocol` takes neither by itself).
  async function raw(bytes: Uint8Array): Promise<Uint8Array> {
    const run = () => pglite.runExclusive(() => pglite.execProtocol(bytes, { throwOnError: false }));
    return (await pglite._runExclusiveTransaction(run)).data;
  }

  function fail(c: Client, text: string, code = '08P01'): void {
    if (!c.closed) endWithReason(c.socket, errorResponse(code, text));
    close(c, false);
  }

  function close(c: Client, destroy = true): void {
    if (c.closed) return;
    c.closed = true;
    clearTimeout(c.loginTimer);
    clients.delete(c);
    c.wake?.();
    channels.drop(c);
    if (destroy && !c.socket.destroyed) c.socket.destroy();
  }

  const where = options.listen;
  const address = await listenSocket(listening, where);
  listening.on('error', (err) => options.onError?.(err));

  return {
    address,
    get connections() {
      return clients.size;
    },
    async close() {
      channels.close();
      const closing = new Promise<void>((resolve) => listening.close(() => resolve()));
      for (const c of [...clients]) fail(c, 'the node is shutting down', '57P01');
      await closing;
      if ('path' in where) await unlink(where.path).catch(() => undefined);
    },
  };
}

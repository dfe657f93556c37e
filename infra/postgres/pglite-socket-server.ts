import { randomInt } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { createChunkQueue, type ChunkQueue } from './chunk-queue.ts';
import { listenSocket } from './listen-socket.ts';
import {
  afterReadyForQuery,
  cstring,
  dataRows,
  EMPTY,
  errorResponse,
  greeting,
  int32,
  message,
  parseStartup,
  readyForQuery,
  rollbackAll,
  scanAnswer,
  simpleQuery,
  type TxStatus,
} from './pg-wire.ts';
import { createScramSecret, SCRAM_MECHANISM, type ScramExchange, type ScramSecret } from './scram-server.ts';
import { loginStep } from './socket-login.ts';
import { createSocketChannels } from './socket-channels.ts';
import { parseListen, READ_ONLY_AGAIN, readerUnitRefusal, settingsSql, TRANSACTION_READ_ONLY } from './socket-session-sql.ts';
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

export interface SocketUser {
  name: string;
  password: string;
  /** statements run read-only, and what could turn that off is refused */
  readOnly: boolean;
}

/** The largest message a client may send: 16 MiB (a GraphQL request's SQL is far smaller; PostgreSQL's own cap is 1 GB). */
export const MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
/** how long a dropped client's socket stays open for it to read why */
const FAIL_LINGER_MS = 1000;
// a login's messages (startup packet, SASL) are small
const MAX_LOGIN_MESSAGE = 10_000;

export interface PgliteSocketServer {
  /** where clients connect: the socket path, or the TCP host and port */
  readonly address: { path: string } | { host: string; port: number };
  /** open client connections */
  readonly connections: number;
  close(): Promise<void>;
}

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;

interface Client {
  socket: Socket;
  queue: ChunkQueue;
  phase: 'startup' | 'login' | 'ready';
  user?: SocketUser;
  secret?: ScramSecret;
  scram?: ScramExchange;
  loginTimer?: NodeJS.Timeout;
  /** the messages of the unit being received, their bytes and how many are Executes */
  pending: Buffer[];
  pendingBytes: number;
  pendingExecutes: number;
  /** complete units of messages waiting to run, and their bytes (past maxMessageBytes the socket pauses) */
  units: Unit[];
  unitBytes: number;
  /** wakes the runner when a unit arrives */
  wake?: () => void;
  running: boolean;
  closed: boolean;
  /** the session's state after this client's last unit; undefined mid-way (after a Flush) */
  status: TxStatus | undefined;
  /** `set_config` statements for the client's startup settings */
  settings: string;
  channels: Set<string>;
  /** when the transaction the client holds the session with began */
  txSince?: number;
}

interface Unit {
  data: Buffer;
  /** the message that ends it: Sync, Query, Flush or FunctionCall */
  last: 'S' | 'Q' | 'H' | 'F';
  executes: number;
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
        receive(client);
      } catch (err) {
        fail(client, (err as Error).message);
      }
    });
    socket.on('error', () => close(client));
    socket.on('close', () => close(client));
  });

  function receive(c: Client): void {
    const q = c.queue;
    while (!c.closed) {
      if (c.phase === 'startup') {
        if (q.length < 8) return;
        const len = q.int32At(0);
        if (len < 8 || len > MAX_LOGIN_MESSAGE) throw new Error('invalid startup packet');
        if (q.length < len) return;
        const packet = q.take(len);
        const code = packet.readInt32BE(4);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          c.socket.write('N');
          continue;
        }
        // A cancel cannot interrupt PGlite's synchronous run; the statement finishes anyway.
        if (code === CANCEL_REQUEST) return void c.socket.end();
        if (code !== PROTOCOL_3) throw new Error(`unsupported protocol ${code >> 16}.${code & 0xffff}`);
        const params = parseStartup(packet.subarray(8));
        const name = params.get('user') ?? '';
        const user = users.get(name);
        if (user === undefined) return fail(c, `password authentication failed for user "${name}"`, '28P01');
        c.user = user;
        c.secret = secrets.get(name);
        c.settings = settingsSql(params);
        c.phase = 'login';
        c.socket.write(message('R', int32(10), cstring(SCRAM_MECHANISM), Buffer.from([0])));
        continue;
      }
      if (q.length < 5) return;
      const type = String.fromCharCode(q.byteAt(0));
      const len = q.int32At(1);
      if (len < 4) throw new Error('invalid message length');
      const limit = c.phase === 'login' ? MAX_LOGIN_MESSAGE : maxMessageBytes;
      if (len - 4 > limit) {
        // refused before any of it is kept: the declared length alone is over the limit
        return fail(c, `a message of ${len - 4} bytes is over the limit of ${limit} bytes of the embedded database's socket`, '54000');
      }
      if (q.length < len + 1) return;
      const msg = q.take(len + 1);
      if (c.phase === 'login') {
        login(c, type, msg.subarray(5));
        continue;
      }
      if (type === 'X') {
        c.socket.end();
        close(c);
        return;
      }
      c.pending.push(msg);
      c.pendingBytes += msg.length;
      if (type === 'E') c.pendingExecutes++;
      if (c.pendingBytes > maxMessageBytes) {
        return fail(c, `the messages up to a Sync are over the limit of ${maxMessageBytes} bytes of the embedded database's socket`, '54000');
      }
      // a unit ends at a Sync, a simple Query, a Flush, or a function call
      if (type !== 'S' && type !== 'Q' && type !== 'H' && type !== 'F') continue;
      const data = c.pending.length === 1 ? msg : Buffer.concat(c.pending, c.pendingBytes);
      c.units.push({ data, last: type, executes: c.pendingExecutes });
      c.unitBytes += data.length;
      c.pending = [];
      c.pendingBytes = 0;
      c.pendingExecutes = 0;
      // a client sending faster than its units run waits (TCP's own backpressure), instead of queueing without end
      if (c.unitBytes > maxMessageBytes) c.socket.pause();
      c.wake?.();
      if (!c.running) void run(c);
    }
  }

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

  /** Runs a client's units, holding the session from a unit until the client is idle again. */
  async function run(c: Client): Promise<void> {
    c.running = true;
    try {
      while (c.units.length > 0 && !c.closed) {
        await exclusive(async () => {
          let changedSettings = false;
          if (c.settings !== '') {
            await raw(simpleQuery(c.settings));
            changedSettings = true;
          }
          try {
            for (;;) {
              const unit = c.units.shift();
              if (unit !== undefined) {
                c.unitBytes -= unit.data.length;
                if (c.socket.isPaused() && c.unitBytes <= maxMessageBytes / 2) c.socket.resume();
                if (overtime(c)) return await abortOvertime(c);
                const before = c.status;
                const started = Date.now();
                const out = await execute(c, unit);
                changedSettings ||= out.changedSettings;
                if (!c.closed) c.socket.write(out.data);
                if (c.status === 'I') c.txSince = undefined;
                else if (before === 'I') c.txSince = started;
              }
              if (c.closed) {
                // a client gone mid-transaction leaves nothing behind (Sync ends a half-sent extended query)
                if (c.status !== 'I') await raw(rollbackAll());
                return;
              }
              // idle: the session goes back to the node and the other clients
              if (c.status === 'I') return;
              if (c.units.length === 0) {
                const next = await nextUnit(c);
                if (next === 'overtime') return await abortOvertime(c);
                if (next === 'idle') {
                  await raw(rollbackAll());
                  fail(c, `idle in a transaction for more than ${idleInTransactionMs / 1000} s; rolled back to free the embedded database`, '25P03');
                  return;
                }
              }
            }
          } finally {
            if (changedSettings) {
              // kept for the client's next turn, then cleared for everyone else
              if (!c.closed) {
                const rows = (await pglite.query<{ name: string; setting: string }>(`select name, setting from pg_settings where source = 'session'`)).rows;
                c.settings = settingsSql(new Map(rows.map((r) => [r.name, r.setting])));
              }
              await raw(simpleQuery('reset all'));
            } else if (c.user!.readOnly && c.closed) {
              // a reader dropped mid-transaction: its rollback restored what READ_ONLY_AGAIN set
              await raw(simpleQuery('reset default_transaction_read_only; reset standard_conforming_strings'));
            }
          }
        });
      }
    } catch (err) {
      options.onError?.(err as Error);
      fail(c, `embedded database: ${(err as Error).message}`);
    } finally {
      c.running = false;
    }
  }

  /** The client's transaction has had its time and the node waits for the session: the node's writes come first. */
  const overtime = (c: Client): boolean => yieldRule.overtime(c.txSince);

  async function abortOvertime(c: Client): Promise<void> {
    yieldRule.rolledBack();
    await raw(rollbackAll());
    c.status = 'I';
    fail(
      c,
      `transaction open for more than ${maxTransactionMs / 1000} s while idx-node waited to write; rolled back to let it write (the embedded database has one session: keep transactions short)`,
      '25P04',
    );
  }

  /** Waits for the client's next unit, up to the idle-in-transaction limit, or until its transaction must yield. */
  function nextUnit(c: Client): Promise<'unit' | 'idle' | 'overtime'> {
    return new Promise((resolve) => {
      const done = (why: 'unit' | 'idle' | 'overtime') => {
        clearTimeout(timer);
        clearInterval(poll);
        c.wake = undefined;
        resolve(why);
      };
      const timer = setTimeout(() => done('idle'), idleInTransactionMs);
      // whether someone waits is asked, not told: a tenth of a second late at most
      const poll = setInterval(() => overtime(c) && done('overtime'), Math.min(100, maxTransactionMs));
      c.wake = () => done('unit');
      if (c.closed) c.wake();
    });
  }

  // PGlite's own locks too: its transaction lock (held by any `pglite.transaction()` for its whole
  // length) and its query lock (what `query`/`exec` take; `execProtocol` takes neither by itself).
  async function raw(bytes: Uint8Array): Promise<Uint8Array> {
    const run = () => pglite.runExclusive(() => pglite.execProtocol(bytes, { throwOnError: false }));
    return (await pglite._runExclusiveTransaction(run)).data;
  }

  async function execute(c: Client, { data: unit, last, executes }: Unit): Promise<{ data: Buffer; changedSettings: boolean }> {
    if (c.user!.readOnly) {
      const refusal = readerUnitRefusal(unit, last, executes);
      if (refusal !== undefined) {
        // an answer the client can go on from, at the end of a query; otherwise it is dropped
        if ((last === 'S' || last === 'Q') && c.status !== undefined) {
          return { data: Buffer.concat([errorResponse('25006', refusal, 'ERROR'), readyForQuery(c.status)]), changedSettings: false };
        }
        fail(c, refusal, '25006');
        return { data: EMPTY, changedSettings: false };
      }
    }
    const listen = unit[0] === 0x51 /* Q */ ? parseListen(unit.subarray(5, unit.length - 1).toString('utf8')) : undefined;
    if (listen !== undefined) return { data: await channels.apply(c, listen), changedSettings: false };
    // A reader's query goes between two of ours, in the same call: before it, transactions it starts
    // are read-only again whatever it did before (not mid-pipeline, where a query would end the
    // pipeline's transaction); after it, whether the transaction it is in is read-only.
    const wrapped = c.user!.readOnly && (last === 'S' || last === 'Q');
    const before = wrapped && c.status !== undefined ? READ_ONLY_AGAIN : undefined;
    const after = wrapped ? TRANSACTION_READ_ONLY : undefined;
    let out = Buffer.from(await raw(before || after ? Buffer.concat([before ?? EMPTY, unit, after ?? EMPTY]) : unit));
    let check: Buffer | undefined;
    if (before) out = out.subarray(afterReadyForQuery(out, 1));
    if (after) {
      const cut = afterReadyForQuery(out, 1);
      check = out.subarray(cut);
      out = out.subarray(0, cut);
    }
    // Notifications reach listeners through onNotification; the bytes go to the client without them.
    const { data, status, changedSettings } = scanAnswer(out);
    c.status = status;
    if (check !== undefined && status === 'T' && dataRows(check)[0]?.[0] !== 'on') {
      // cannot have written yet: one statement per query, and none of them both opens a transaction and writes
      await raw(rollbackAll());
      c.status = 'I';
      fail(c, 'this login is read-only, and its transaction was not; rolled back', '25006');
      return { data: EMPTY, changedSettings };
    }
    return { data, changedSettings };
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

function newClient(socket: Socket): Client {
  return {
    socket,
    queue: createChunkQueue(),
    phase: 'startup',
    pending: [],
    pendingBytes: 0,
    pendingExecutes: 0,
    units: [],
    unitBytes: 0,
    running: false,
    closed: false,
    status: 'I',
    settings: '',
    channels: new Set(),
  };
}

/**
 * Sends a dropped client the reason, then the end, and keeps the socket a moment (reading nothing) so
 * that a client still writing reads it: destroyed at once, the client's next write met a reset that
 * took the reason with it ("write EPIPE" instead of the message).
 */
function endWithReason(socket: Socket, reason: Buffer): void {
  if (socket.destroyed) return;
  socket.end(reason);
  socket.pause();
  setTimeout(() => socket.destroy(), FAIL_LINGER_MS).unref();
}

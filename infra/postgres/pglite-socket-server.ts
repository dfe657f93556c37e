import { randomInt } from 'node:crypto';
import { chmod, unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { createChunkQueue, type ChunkQueue } from './chunk-queue.ts';
import { readerRefusal } from './reader-sql.ts';
import { createScramSecret, SCRAM_MECHANISM, startScram, type ScramExchange, type ScramSecret } from './scram-server.ts';
import { quoteIdent } from './sql.ts';

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
/** how long after a rollback for the node later transactions get the short limit */
const STRICT_AFTER_OVERTIME_MS = 10_000;
// a login's messages (startup packet, SASL) are small
const MAX_LOGIN_MESSAGE = 10_000;

export interface PgliteSocketServer {
  /** where clients connect: the socket path, or the TCP host and port */
  readonly address: { path: string } | { host: string; port: number };
  /** open client connections */
  readonly connections: number;
  close(): Promise<void>;
}

const EMPTY = Buffer.alloc(0);
const READ_ONLY_AGAIN = simpleQuery(`select set_config('default_transaction_read_only', 'on', false), set_config('standard_conforming_strings', 'on', false)`);
// and gives the session back its defaults at once, in the transaction if there is one (a rollback then restores READ_ONLY_AGAIN's)
const TRANSACTION_READ_ONLY = simpleQuery(
  `select current_setting('transaction_read_only'); reset default_transaction_read_only; reset standard_conforming_strings`,
);
const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
// Startup parameters that are not settings.
const NOT_SETTINGS = new Set(['user', 'database', 'options', 'replication', 'client_encoding', 'application_name', 'fallback_application_name']);

type TxStatus = 'I' | 'T' | 'E';

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
  const waiting = options.waiting ?? (() => 0);
  const users = new Map(options.users.map((u) => [u.name, u]));
  // derived once per server run: a login then costs two HMACs
  const secrets = new Map(options.users.map((u) => [u.name, createScramSecret(u.password)]));
  const clients = new Set<Client>();
  const listeners = new Map<string, Set<Client>>();
  const secret = randomInt(2 ** 31);

  const [info] = await exclusive(
    async () => (await pglite.query<{ v: string; tz: string }>(`select current_setting('server_version') as v, current_setting('TimeZone') as tz`)).rows,
  );
  const greeting = (user: SocketUser) =>
    Buffer.concat([
      message('R', int32(0)),
      ...Object.entries({
        server_version: info?.v ?? '16',
        server_encoding: 'UTF8',
        client_encoding: 'UTF8',
        DateStyle: 'ISO, MDY',
        IntervalStyle: 'postgres',
        integer_datetimes: 'on',
        standard_conforming_strings: 'on',
        TimeZone: info?.tz ?? 'UTC',
        is_superuser: user.readOnly ? 'off' : 'on',
        session_authorization: user.name,
        default_transaction_read_only: user.readOnly ? 'on' : 'off',
      }).map(([k, v]) => message('S', cstring(k), cstring(v))),
      message('K', int32(process.pid), int32(secret)),
      readyForQuery('I'),
    ]);

  const offNotification = pglite.onNotification((channel, payload) => {
    const to = listeners.get(channel);
    if (to === undefined) return;
    const note = message('A', int32(process.pid), cstring(channel), cstring(payload));
    for (const c of to) if (!c.closed) c.socket.write(note);
  });

  const server: Server = createServer((socket) => {
    const client: Client = {
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

  /** The SCRAM exchange: the client's first message, then its proof. */
  function login(c: Client, type: string, body: Buffer): void {
    const denied = () => fail(c, `password authentication failed for user "${c.user!.name}"`, '28P01');
    if (type !== 'p') return denied();
    if (c.scram === undefined) {
      const mechanism = body.toString('utf8', 0, Math.max(0, body.indexOf(0)));
      const at = body.indexOf(0) + 1;
      if (mechanism !== SCRAM_MECHANISM || at <= 0 || at + 4 > body.length) return denied();
      const size = body.readInt32BE(at);
      const exchange = startScram(c.secret!, body.toString('utf8', at + 4, at + 4 + Math.max(0, size)));
      if (exchange === undefined) return denied();
      c.scram = exchange;
      c.socket.write(message('R', int32(11), Buffer.from(exchange.serverFirst, 'utf8')));
      return;
    }
    const final = c.scram.finish(body.toString('utf8'));
    if (final === undefined) return denied();
    clearTimeout(c.loginTimer);
    c.phase = 'ready';
    c.socket.write(Buffer.concat([message('R', int32(12), Buffer.from(final, 'utf8')), greeting(c.user!)]));
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
                if (c.status !== 'I') await raw(Buffer.concat([message('S'), simpleQuery('rollback')]));
                return;
              }
              // idle: the session goes back to the node and the other clients
              if (c.status === 'I') return;
              if (c.units.length === 0) {
                const next = await nextUnit(c);
                if (next === 'overtime') return await abortOvertime(c);
                if (next === 'idle') {
                  await raw(Buffer.concat([message('S'), simpleQuery('rollback')]));
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

  // once a client's transaction had to be rolled back for the node, those that follow in the next
  // seconds get a fifth of the time: a client back at once after each rollback (or several in
  // turn) would otherwise hold every one of the node's queries of a flush for the whole limit
  let lastOvertime = -Infinity;
  const strictTransactionMs = Math.min(200, maxTransactionMs);

  /** The client's transaction has had its time and the node waits for the session: the node's writes come first. */
  function overtime(c: Client): boolean {
    if (c.txSince === undefined || waiting() === 0) return false;
    const now = Date.now();
    return now - c.txSince >= (now - lastOvertime < STRICT_AFTER_OVERTIME_MS ? strictTransactionMs : maxTransactionMs);
  }

  async function abortOvertime(c: Client): Promise<void> {
    lastOvertime = Date.now();
    await raw(Buffer.concat([message('S'), simpleQuery('rollback')]));
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
    if (listen !== undefined) return { data: await applyListen(c, listen), changedSettings: false };
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
    const kept: Buffer[] = [];
    let status: TxStatus | undefined;
    let changedSettings = false;
    for (let at = 0; at + 5 <= out.length;) {
      const type = out[at]!;
      const next = at + 1 + out.readInt32BE(at + 1);
      if (type === 0x5a /* Z */) status = String.fromCharCode(out[at + 5]!) as TxStatus;
      else if (type === 0x43 /* C */ && /^(SET|RESET)\0/.test(out.toString('latin1', at + 5, at + 11))) changedSettings = true;
      if (type !== 0x41 /* A */) kept.push(out.subarray(at, next));
      at = next;
    }
    c.status = status;
    if (check !== undefined && status === 'T' && dataRows(check)[0]?.[0] !== 'on') {
      // cannot have written yet: one statement per query, and none of them both opens a transaction and writes
      await raw(Buffer.concat([message('S'), simpleQuery('rollback')]));
      c.status = 'I';
      fail(c, 'this login is read-only, and its transaction was not; rolled back', '25006');
      return { data: EMPTY, changedSettings };
    }
    return { data: Buffer.concat(kept), changedSettings };
  }

  async function applyListen(c: Client, cmd: ListenCommand): Promise<Buffer> {
    const tag = cmd.kind === 'listen' ? 'LISTEN' : 'UNLISTEN';
    const targets = cmd.kind === 'listen' ? [cmd.channel!] : cmd.channel === undefined ? [...c.channels] : [cmd.channel];
    for (const channel of targets) {
      if (cmd.kind === 'listen') {
        let set = listeners.get(channel);
        if (set === undefined) {
          await raw(simpleQuery(`listen ${quoteIdent(channel)}`));
          listeners.set(channel, (set = new Set()));
        }
        set.add(c);
        c.channels.add(channel);
      } else {
        c.channels.delete(channel);
        await forget(channel, c, true);
      }
    }
    return Buffer.concat([message('C', cstring(tag)), readyForQuery(c.status ?? 'I')]);
  }

  /** Drops a client from a channel; the session stops listening once nobody does. */
  async function forget(channel: string, c: Client, locked: boolean): Promise<void> {
    const set = listeners.get(channel);
    if (set === undefined) return;
    set.delete(c);
    if (set.size > 0) return;
    listeners.delete(channel);
    const unlisten = () => raw(simpleQuery(`unlisten ${quoteIdent(channel)}`));
    if (locked) await unlisten();
    else await exclusive(unlisten).catch(() => undefined);
  }

  function fail(c: Client, text: string, code = '08P01'): void {
    if (!c.closed) c.socket.end(errorResponse(code, text));
    close(c);
  }

  function close(c: Client): void {
    if (c.closed) return;
    c.closed = true;
    clearTimeout(c.loginTimer);
    clients.delete(c);
    c.wake?.();
    for (const channel of c.channels) void forget(channel, c, false);
    c.channels.clear();
    if (!c.socket.destroyed) c.socket.destroy();
  }

  const where = options.listen;
  if ('path' in where) await unlink(where.path).catch(() => undefined); // left by a process that died
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    if ('path' in where) {
      // the socket file is made while listen() runs: with this umask it is the owner's alone (0600) from the start
      // (a worker thread may not set the umask: the chmod below then closes the short gap)
      let umask: number | undefined;
      try {
        umask = process.umask(0o177);
      } catch {
        umask = undefined;
      }
      try {
        server.listen(where.path, resolve);
      } finally {
        if (umask !== undefined) process.umask(umask);
      }
    } else server.listen(where.port, where.host, resolve);
  });
  if ('path' in where) await chmod(where.path, 0o600);
  server.on('error', (err) => options.onError?.(err));
  const bound = server.address();
  const address = 'path' in where ? { path: where.path } : { host: where.host, port: typeof bound === 'object' && bound !== null ? bound.port : where.port };

  return {
    address,
    get connections() {
      return clients.size;
    },
    async close() {
      offNotification();
      const closing = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const c of [...clients]) fail(c, 'the node is shutting down', '57P01');
      await closing;
      if ('path' in where) await unlink(where.path).catch(() => undefined);
    },
  };
}

interface ListenCommand {
  kind: 'listen' | 'unlisten';
  /** undefined for `UNLISTEN *` */
  channel?: string;
}

/** A simple query that is exactly one LISTEN or UNLISTEN, with the channel as PostgreSQL reads it. */
export function parseListen(sql: string): ListenCommand | undefined {
  const m = /^\s*(listen|unlisten)\s+("(?:[^"]|"")+"|[A-Za-z_][A-Za-z0-9_$]*|\*)\s*;?\s*$/i.exec(sql);
  if (m === null) return undefined;
  const kind = m[1]!.toLowerCase() as ListenCommand['kind'];
  const name = m[2]!;
  if (name === '*') return kind === 'unlisten' ? { kind } : undefined;
  const channel = name.startsWith('"') ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
  return { kind, channel };
}

/** Why a reader's unit of messages may not run, or undefined. */
function readerUnitRefusal(unit: Buffer, last: Unit['last'], executes: number): string | undefined {
  if (executes > 1) return 'one statement at a time: several Execute messages before a Sync';
  if (last === 'H' && executes > 0) return 'an Execute must be followed by a Sync';
  for (let at = 0; at + 5 <= unit.length;) {
    const type = String.fromCharCode(unit[at]!);
    const next = at + 1 + unit.readInt32BE(at + 1);
    if (type === 'F') return 'function calls by OID are not accepted';
    let sql: string | undefined;
    if (type === 'Q') sql = unit.toString('utf8', at + 5, next - 1);
    else if (type === 'P') {
      const nameEnd = unit.indexOf(0, at + 5);
      sql = unit.toString('utf8', nameEnd + 1, unit.indexOf(0, nameEnd + 1));
    }
    const refusal = sql === undefined ? undefined : readerRefusal(sql);
    if (refusal !== undefined) return `this login is read-only: ${refusal}`;
    at = next;
  }
  return undefined;
}

/** The offset after the `n`th ReadyForQuery of a backend's answer (its length when there are fewer). */
function afterReadyForQuery(out: Buffer, n: number): number {
  let seen = 0;
  for (let at = 0; at + 5 <= out.length;) {
    const next = at + 1 + out.readInt32BE(at + 1);
    if (out[at] === 0x5a /* Z */ && ++seen === n) return next;
    at = next;
  }
  return out.length;
}

/** The text values of the DataRows in a backend's answer. */
function dataRows(out: Buffer): (string | null)[][] {
  const rows: (string | null)[][] = [];
  for (let at = 0; at + 5 <= out.length;) {
    const next = at + 1 + out.readInt32BE(at + 1);
    if (out[at] === 0x44 /* D */) {
      const row: (string | null)[] = [];
      let p = at + 7;
      for (let i = out.readInt16BE(at + 5); i > 0; i--) {
        const len = out.readInt32BE(p);
        p += 4;
        if (len < 0) row.push(null);
        else {
          row.push(out.toString('utf8', p, p + len));
          p += len;
        }
      }
      rows.push(row);
    }
    at = next;
  }
  return rows;
}

function parseStartup(body: Buffer): Map<string, string> {
  const parts = body.toString('utf8').split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) out.set(parts[i]!, parts[i + 1]!);
  return out;
}

/** `set_config` for the client's startup settings, including `-c name=value` in `options`. */
function settingsSql(params: Map<string, string>): string {
  const settings: [string, string][] = [];
  for (const [k, v] of params) if (!NOT_SETTINGS.has(k)) settings.push([k, v]);
  const opts = params.get('options') ?? '';
  for (const m of opts.matchAll(/(?:-c\s*|--)([A-Za-z_.]+)=(\S+)/g)) settings.push([m[1]!.replace(/-/g, '_'), m[2]!]);
  if (settings.length === 0) return '';
  const lit = (s: string) => `'${s.replace(/'/g, "''")}'`;
  return `select ${settings.map(([k, v]) => `set_config(${lit(k)}, ${lit(v)}, false)`).join(', ')}`;
}

function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n | 0);
  return b;
}

function cstring(s: string): Buffer {
  return Buffer.from(`${s}\0`, 'utf8');
}

function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(type, 'latin1'), int32(body.length + 4), body]);
}

function readyForQuery(status: TxStatus): Buffer {
  return message('Z', Buffer.from(status, 'latin1'));
}

function simpleQuery(sql: string): Buffer {
  return message('Q', cstring(sql));
}

function errorResponse(code: string, text: string, severity: 'FATAL' | 'ERROR' = 'FATAL'): Buffer {
  return message('E', cstring(`S${severity}`), cstring(`V${severity}`), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0]));
}

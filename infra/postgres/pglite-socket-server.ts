import { randomInt } from 'node:crypto';
import { unlink } from 'node:fs/promises';
import { createServer, type Server, type Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
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
 * Not supported: COPY FROM STDIN, and LISTEN hidden among other statements in one query string.
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
  /** a client idle inside a transaction this long is rolled back and dropped (default 60 s) */
  idleInTransactionMs?: number;
  onError?: (err: Error) => void;
}

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
// Startup parameters that are not settings.
const NOT_SETTINGS = new Set(['user', 'database', 'options', 'replication', 'client_encoding', 'application_name', 'fallback_application_name']);

type TxStatus = 'I' | 'T' | 'E';

interface Client {
  socket: Socket;
  buffer: Buffer;
  started: boolean;
  /** complete units of messages waiting to run */
  units: Buffer[];
  /** wakes the runner when a unit arrives */
  wake?: () => void;
  running: boolean;
  closed: boolean;
  /** the session's state after this client's last unit; undefined mid-way (after a Flush) */
  status: TxStatus | undefined;
  /** `set_config` statements for the client's startup settings */
  settings: string;
  channels: Set<string>;
}

export async function createPgliteSocketServer(options: PgliteSocketServerOptions): Promise<PgliteSocketServer> {
  const { pglite, exclusive } = options;
  const idleInTransactionMs = options.idleInTransactionMs ?? 60_000;
  const clients = new Set<Client>();
  const listeners = new Map<string, Set<Client>>();
  const secret = randomInt(2 ** 31);

  const [info] = await exclusive(
    async () => (await pglite.query<{ v: string; tz: string }>(`select current_setting('server_version') as v, current_setting('TimeZone') as tz`)).rows,
  );
  const greeting = Buffer.concat([
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
      is_superuser: 'on',
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
      buffer: Buffer.alloc(0),
      started: false,
      units: [],
      running: false,
      closed: false,
      status: 'I',
      settings: '',
      channels: new Set(),
    };
    clients.add(client);
    socket.setNoDelay(true);
    socket.on('data', (chunk) => {
      client.buffer = client.buffer.length === 0 ? chunk : Buffer.concat([client.buffer, chunk]);
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
    for (;;) {
      if (!c.started) {
        if (c.buffer.length < 8) return;
        const len = c.buffer.readInt32BE(0);
        if (len < 8 || len > 10_000) throw new Error('invalid startup packet');
        if (c.buffer.length < len) return;
        const code = c.buffer.readInt32BE(4);
        const body = c.buffer.subarray(8, len);
        c.buffer = c.buffer.subarray(len);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          c.socket.write('N');
          continue;
        }
        // A cancel cannot interrupt PGlite's synchronous run; the statement finishes anyway.
        if (code === CANCEL_REQUEST) return void c.socket.end();
        if (code !== PROTOCOL_3) throw new Error(`unsupported protocol ${code >> 16}.${code & 0xffff}`);
        c.settings = settingsSql(parseStartup(body));
        c.started = true;
        c.socket.write(greeting);
        continue;
      }
      // Whole messages up to the end of a unit: Sync, a simple Query, Flush, or a function call.
      let end = 0;
      let unitEnd = -1;
      while (end + 5 <= c.buffer.length) {
        const len = c.buffer.readInt32BE(end + 1);
        if (len < 4) throw new Error('invalid message length');
        if (end + 1 + len > c.buffer.length) break;
        const type = String.fromCharCode(c.buffer[end]!);
        end += 1 + len;
        if (type === 'X') {
          c.socket.end();
          close(c);
          return;
        }
        if (type === 'S' || type === 'Q' || type === 'H' || type === 'F') {
          unitEnd = end;
          break;
        }
      }
      if (unitEnd < 0) return;
      c.units.push(Buffer.from(c.buffer.subarray(0, unitEnd)));
      c.buffer = c.buffer.subarray(unitEnd);
      c.wake?.();
      if (!c.running) void run(c);
    }
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
                const out = await execute(c, unit);
                changedSettings ||= out.changedSettings;
                if (!c.closed) c.socket.write(out.data);
              }
              if (c.closed) {
                // a client gone mid-transaction leaves nothing behind (Sync ends a half-sent extended query)
                if (c.status !== 'I') await raw(Buffer.concat([message('S'), simpleQuery('rollback')]));
                return;
              }
              // idle: the session goes back to the node and the other clients
              if (c.status === 'I') return;
              if (c.units.length === 0 && !(await nextUnit(c))) {
                await raw(simpleQuery('rollback'));
                fail(c, `idle in a transaction for more than ${idleInTransactionMs / 1000} s; rolled back to free the embedded database`, '25P03');
                return;
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

  /** Waits for the client's next unit; false after the idle-in-transaction limit. */
  function nextUnit(c: Client): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        c.wake = undefined;
        resolve(false);
      }, idleInTransactionMs);
      c.wake = () => {
        clearTimeout(timer);
        c.wake = undefined;
        resolve(true);
      };
      if (c.closed) c.wake();
    });
  }

  // PGlite's own locks too: its transaction lock (held by any `pglite.transaction()` for its whole
  // length) and its query lock (what `query`/`exec` take; `execProtocol` takes neither by itself).
  async function raw(bytes: Uint8Array): Promise<Uint8Array> {
    const run = () => pglite.runExclusive(() => pglite.execProtocol(bytes, { throwOnError: false }));
    return (await pglite._runExclusiveTransaction(run)).data;
  }

  async function execute(c: Client, unit: Buffer): Promise<{ data: Buffer; changedSettings: boolean }> {
    const listen = unit[0] === 0x51 /* Q */ ? parseListen(unit.subarray(5, unit.length - 1).toString('utf8')) : undefined;
    if (listen !== undefined) return { data: await applyListen(c, listen), changedSettings: false };
    const out = Buffer.from(await raw(unit));
    // Notifications reach listeners through onNotification; the bytes go to the client without them.
    const kept: Buffer[] = [];
    let status: TxStatus | undefined;
    let changedSettings = false;
    for (let at = 0; at + 5 <= out.length;) {
      const type = out[at]!;
      const next = at + 1 + out.readInt32BE(at + 1);
      if (type === 0x5a /* Z */) status = String.fromCharCode(out[at + 5]!) as TxStatus;
      else if (type === 0x43 /* C */ && out.toString('latin1', at + 5, at + 8) === 'SET') changedSettings = true;
      if (type !== 0x41 /* A */) kept.push(out.subarray(at, next));
      at = next;
    }
    c.status = status;
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
    if ('path' in where) server.listen(where.path, resolve);
    else server.listen(where.port, where.host, resolve);
  });
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

function errorResponse(code: string, text: string): Buffer {
  return message('E', Buffer.from('SFATAL\0', 'utf8'), Buffer.from('VFATAL\0', 'utf8'), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0]));
}

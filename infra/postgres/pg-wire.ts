/**
 * The PostgreSQL wire protocol's messages as the embedded database's socket (pglite-socket-server.ts)
 * writes and reads them: pure functions over bytes.
 */

/** a session's transaction state, as ReadyForQuery reports it: idle, in a transaction, in a failed one */
export type TxStatus = 'I' | 'T' | 'E';

export const EMPTY = Buffer.alloc(0);

export function int32(n: number): Buffer {
  const b = Buffer.alloc(4);
  b.writeInt32BE(n | 0);
  return b;
}

export function cstring(s: string): Buffer {
  return Buffer.from(`${s}\0`, 'utf8');
}

/** One message: its type byte, its length, its body. */
export function message(type: string, ...parts: Buffer[]): Buffer {
  const body = Buffer.concat(parts);
  return Buffer.concat([Buffer.from(type, 'latin1'), int32(body.length + 4), body]);
}

export function readyForQuery(status: TxStatus): Buffer {
  return message('Z', Buffer.from(status, 'latin1'));
}

export function simpleQuery(sql: string): Buffer {
  return message('Q', cstring(sql));
}

/** A Sync, then `rollback`: ends whatever a client left open, a half-sent extended query too. */
export function rollbackAll(): Buffer {
  return Buffer.concat([message('S'), simpleQuery('rollback')]);
}

export function errorResponse(code: string, text: string, severity: 'FATAL' | 'ERROR' = 'FATAL'): Buffer {
  return message('E', cstring(`S${severity}`), cstring(`V${severity}`), cstring(`C${code}`), cstring(`M${text}`), Buffer.from([0]));
}

/** What a login is told once it is in: authentication ok, the server's parameters, its key, ReadyForQuery. */
export function greeting(server: { version: string; timeZone: string; pid: number; secret: number }, user: { name: string; readOnly: boolean }): Buffer {
  return Buffer.concat([
    message('R', int32(0)),
    ...Object.entries({
      server_version: server.version,
      server_encoding: 'UTF8',
      client_encoding: 'UTF8',
      DateStyle: 'ISO, MDY',
      IntervalStyle: 'postgres',
      integer_datetimes: 'on',
      standard_conforming_strings: 'on',
      TimeZone: server.timeZone,
      is_superuser: user.readOnly ? 'off' : 'on',
      session_authorization: user.name,
      default_transaction_read_only: user.readOnly ? 'on' : 'off',
    }).map(([k, v]) => message('S', cstring(k), cstring(v))),
    message('K', int32(server.pid), int32(server.secret)),
    readyForQuery('I'),
  ]);
}

/** A startup packet's parameters (after its length and protocol). */
export function parseStartup(body: Buffer): Map<string, string> {
  const parts = body.toString('utf8').split('\0');
  const out = new Map<string, string>();
  for (let i = 0; i + 1 < parts.length && parts[i] !== ''; i += 2) out.set(parts[i]!, parts[i + 1]!);
  return out;
}

/**
 * A backend's answer for the client: without notifications (they reach listeners through
 * onNotification), with the transaction state of its last ReadyForQuery, and whether a SET or
 * RESET ran.
 */
export function scanAnswer(out: Buffer): { data: Buffer; status: TxStatus | undefined; changedSettings: boolean } {
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
  return { data: Buffer.concat(kept), status, changedSettings };
}

/** The offset after the `n`th ReadyForQuery of a backend's answer (its length when there are fewer). */
export function afterReadyForQuery(out: Buffer, n: number): number {
  let seen = 0;
  for (let at = 0; at + 5 <= out.length;) {
    const next = at + 1 + out.readInt32BE(at + 1);
    if (out[at] === 0x5a /* Z */ && ++seen === n) return next;
    at = next;
  }
  return out.length;
}

/** The text values of the DataRows in a backend's answer. */
export function dataRows(out: Buffer): (string | null)[][] {
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

import { cstring, int32, message, parseStartup } from './pg-wire.ts';
import type { Client } from './socket-client.ts';
import { SCRAM_MECHANISM } from './scram-server.ts';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
// a login's messages (startup packet, SASL) are small
const MAX_LOGIN_MESSAGE = 10_000;

/** What reading a client's bytes hands on: its login to the server, its complete units to its runner. */
export interface Receiver {
  maxMessageBytes: number;
  /** the startup packet's parameters: whether the user may log in (a refused client is dropped with the reason) */
  admit(c: Client, params: Map<string, string>): boolean;
  /** one message of the SCRAM exchange */
  login(c: Client, type: string, body: Buffer): void;
  close(c: Client): void;
  fail(c: Client, text: string, code?: string): void;
  /** runs the client's units (it has none running) */
  start(c: Client): void;
}

/**
 * Reads what a client has sent so far into messages: the startup packet, the login, then units of
 * messages (up to a Sync, a Query, a Flush or a function call), each bounded before any of it is kept.
 */
export function receive(r: Receiver, c: Client): void {
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
      if (!r.admit(c, parseStartup(packet.subarray(8)))) return;
      c.phase = 'login';
      c.socket.write(message('R', int32(10), cstring(SCRAM_MECHANISM), Buffer.from([0])));
      continue;
    }
    if (q.length < 5) return;
    const type = String.fromCharCode(q.byteAt(0));
    const len = q.int32At(1);
    if (len < 4) throw new Error('invalid message length');
    const limit = c.phase === 'login' ? MAX_LOGIN_MESSAGE : r.maxMessageBytes;
    if (len - 4 > limit) {
      // refused before any of it is kept: the declared length alone is over the limit
      return r.fail(c, `a message of ${len - 4} bytes is over the limit of ${limit} bytes of the embedded database's socket`, '54000');
    }
    if (q.length < len + 1) return;
    const msg = q.take(len + 1);
    if (c.phase === 'login') {
      r.login(c, type, msg.subarray(5));
      continue;
    }
    if (type === 'X') {
      c.socket.end();
      r.close(c);
      return;
    }
    c.pending.push(msg);
    c.pendingBytes += msg.length;
    if (type === 'E') c.pendingExecutes++;
    if (c.pendingBytes > r.maxMessageBytes) {
      return r.fail(c, `the messages up to a Sync are over the limit of ${r.maxMessageBytes} bytes of the embedded database's socket`, '54000');
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
    if (c.unitBytes > r.maxMessageBytes) c.socket.pause();
    c.wake?.();
    if (!c.running) r.start(c);
  }
}

import type { Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { createChunkQueue, type ChunkQueue } from './chunk-queue.ts';
import type { TxStatus } from './pg-wire.ts';
import type { ScramExchange, ScramSecret } from './scram-server.ts';
import type { SocketChannels } from './socket-channels.ts';
import type { TransactionYield } from './transaction-yield.ts';

/** One user the embedded database's socket lets in. */
export interface SocketUser {
  name: string;
  password: string;
  /** statements run read-only, and what could turn that off is refused */
  readOnly: boolean;
}

/** how long a dropped client's socket stays open for it to read why */
const FAIL_LINGER_MS = 1000;

/** One connection to the embedded database's socket, from its startup packet to its end. */
export interface Client {
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

export interface Unit {
  data: Buffer;
  /** the message that ends it: Sync, Query, Flush or FunctionCall */
  last: 'S' | 'Q' | 'H' | 'F';
  executes: number;
}

/** What a client's session runs with: the server's limits, the session's locks and how a client is let go. */
export interface SocketSession {
  pglite: PGlite;
  /** runs `fn` while nobody else uses the session (the node's connection lock) */
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>;
  /** runs protocol bytes on the session under PGlite's own locks; the answer's bytes */
  raw: (bytes: Uint8Array) => Promise<Uint8Array>;
  channels: SocketChannels;
  yieldRule: TransactionYield;
  idleInTransactionMs: number;
  maxTransactionMs: number;
  maxMessageBytes: number;
  /** drops a client with an error it reads first */
  fail: (c: Client, text: string, code?: string) => void;
  onError?: (err: Error) => void;
}

export function newClient(socket: Socket): Client {
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
export function endWithReason(socket: Socket, reason: Buffer): void {
  if (socket.destroyed) return;
  socket.end(reason);
  socket.pause();
  setTimeout(() => socket.destroy(), FAIL_LINGER_MS).unref();
}

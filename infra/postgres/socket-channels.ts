import type { Socket } from 'node:net';
import type { PGlite } from '@electric-sql/pglite';
import { cstring, int32, message, readyForQuery, simpleQuery, type TxStatus } from './pg-wire.ts';
import type { ListenCommand } from './socket-session-sql.ts';
import { quoteIdent } from './sql.ts';

/** What the channels need of a socket's client. */
export interface ChannelClient {
  socket: Socket;
  closed: boolean;
  channels: Set<string>;
  status: TxStatus | undefined;
}

export interface SocketChannels {
  /** Runs a client's LISTEN or UNLISTEN (the session held); the answer for the client. */
  apply(c: ChannelClient, cmd: ListenCommand): Promise<Buffer>;
  /** A client gone: it listens no more. */
  drop(c: ChannelClient): void;
  /** Stops passing notifications on. */
  close(): void;
}

/**
 * LISTEN/UNLISTEN kept per client of the embedded database's socket: the one PGlite session listens
 * on the union of the channels, and each notification goes to the clients that listen on its channel.
 * `raw` runs protocol bytes on the session (held); `exclusive` takes the session.
 */
export function createSocketChannels(
  pglite: PGlite,
  raw: (bytes: Uint8Array) => Promise<Uint8Array>,
  exclusive: <T>(fn: () => Promise<T>) => Promise<T>,
): SocketChannels {
  const listeners = new Map<string, Set<ChannelClient>>();
  const offNotification = pglite.onNotification((channel, payload) => {
    const to = listeners.get(channel);
    if (to === undefined) return;
    const note = message('A', int32(process.pid), cstring(channel), cstring(payload));
    for (const c of to) if (!c.closed) c.socket.write(note);
  });

  /** Drops a client from a channel; the session stops listening once nobody does. */
  async function forget(channel: string, c: ChannelClient, locked: boolean): Promise<void> {
    const set = listeners.get(channel);
    if (set === undefined) return;
    set.delete(c);
    if (set.size > 0) return;
    listeners.delete(channel);
    const unlisten = () => raw(simpleQuery(`unlisten ${quoteIdent(channel)}`));
    if (locked) await unlisten();
    else await exclusive(unlisten).catch(() => undefined);
  }

  return {
    async apply(c, cmd) {
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
    },
    drop(c) {
      for (const channel of c.channels) void forget(channel, c, false);
      c.channels.clear();
    },
    close: offNotification,
  };
}

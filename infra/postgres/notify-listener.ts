import pgListen, { type Subscriber } from 'pg-listen';
import type pg from 'pg';
import type { NotifyPayload } from './notify-triggers.ts';

export interface NotifyListenerOptions {
  /** where to LISTEN: the same database the queries read (PostgreSQL, or the node's embedded socket) */
  connection: pg.ClientConfig;
  /** connection problems; the listener keeps reconnecting (a restarted node, a database failover) */
  onError?: (err: Error) => void;
  onReconnect?: (attempt: number) => void;
}

export type NotifyHandler = (payload: NotifyPayload) => void;

export interface NotifyListener {
  /** Delivers the payloads of a channel until the returned function is called. */
  subscribe(channel: string, handler: NotifyHandler): Promise<() => Promise<void>>;
  close(): Promise<void>;
}

/**
 * One LISTEN connection (pg-listen) shared by every subscriber of a process: a channel is listened
 * to while someone subscribes to it. pg-listen re-LISTENs after a reconnect; notifications sent
 * while the connection was down are lost, as PostgreSQL keeps none for absent listeners.
 */
export async function createNotifyListener(options: NotifyListenerOptions): Promise<NotifyListener> {
  let closed = false;
  // pg-listen is CommonJS: its function is `module.exports`, and again as `.default`, which TypeScript sees
  const subscriber: Subscriber = pgListen.default(options.connection, {
    parse: (text: string) => text,
    // A node restart takes seconds; keep trying rather than give up after pg-listen's 3 s default.
    retryLimit: Number.POSITIVE_INFINITY,
    retryTimeout: Number.POSITIVE_INFINITY,
    // pg-listen's close() does not stop a reconnection under way (the database went away as the process
    // stops, as when idx-node and idx-query stop together): its loop asks for the next wait after each
    // failed attempt, and this ends it, so no timer keeps the process alive nor reports attempts
    retryInterval: (attempt: number) => {
      if (closed) throw new Error('the listener is closed');
      return Math.min(5000, 250 * 2 ** Math.min(attempt, 5));
    },
    paranoidChecking: 10_000,
  });
  const handlers = new Map<string, Set<NotifyHandler>>();
  subscriber.events.on('notification', ({ channel, payload }) => {
    const set = handlers.get(channel);
    if (set === undefined || typeof payload !== 'string') return;
    let parsed: NotifyPayload;
    try {
      parsed = JSON.parse(payload) as NotifyPayload;
    } catch (err) {
      options.onError?.(new Error(`unreadable notification on ${channel}: ${(err as Error).message}`));
      return;
    }
    for (const handler of set) handler(parsed);
  });
  subscriber.events.on('error', (err) => {
    if (!closed) options.onError?.(err);
  });
  subscriber.events.on('reconnect', (attempt) => {
    if (!closed) options.onReconnect?.(attempt);
  });
  // a reconnection under way at close() that then succeeded: that connection is closed too
  subscriber.events.on('connected', () => {
    if (closed) subscriber.close().catch(() => undefined);
  });
  await subscriber.connect();

  return {
    async subscribe(channel, handler) {
      let set = handlers.get(channel);
      if (set === undefined) {
        handlers.set(channel, (set = new Set()));
        await subscriber.listenTo(channel);
      }
      set.add(handler);
      return async () => {
        const current = handlers.get(channel);
        if (current === undefined || !current.delete(handler) || current.size > 0) return;
        handlers.delete(channel);
        await subscriber.unlisten(channel)?.catch(() => undefined);
      };
    },
    async close() {
      closed = true;
      handlers.clear();
      await subscriber.close();
    },
  };
}

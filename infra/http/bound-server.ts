import type { Server } from 'node:http';

/** The bounds of a small monitoring listener (idx-node's /health, /meta, /status …): its answers are small and quick. */
export const MONITOR_LISTENER_LIMITS = {
  /** open connections at once; more are refused until one closes (a page polling holds one) */
  maxConnections: 64,
  /** a request's headers must arrive within this, ms (slow-loris) */
  headersTimeoutMs: 10_000,
  /** the whole request, ms */
  requestTimeoutMs: 10_000,
  /** an idle keep-alive connection is closed after this, ms */
  keepAliveTimeoutMs: 5_000,
  /** header lines of one request */
  maxHeadersCount: 100,
} as const;

/**
 * Bounds a listener in connections and time, so a client cannot hold it (or the process's sockets)
 * open: a slow or stuck client is dropped, a flood of connections is refused. Header bytes are
 * bounded by Node (16 KB) and these listeners read no request bodies.
 */
export function boundServer(server: Server, limits: typeof MONITOR_LISTENER_LIMITS = MONITOR_LISTENER_LIMITS): Server {
  server.maxConnections = limits.maxConnections;
  server.headersTimeout = limits.headersTimeoutMs;
  server.requestTimeout = limits.requestTimeoutMs;
  server.keepAliveTimeout = limits.keepAliveTimeoutMs;
  server.maxHeadersCount = limits.maxHeadersCount;
  return server;
}

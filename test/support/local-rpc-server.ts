import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { readFileSync } from 'node:fs';
import { createServer as createNetServer } from 'node:net';
import type { Teardown } from './teardown.ts';

/** What a test server answers to one HTTP request. */
export interface Reply {
  status?: number;
  /** sent as JSON */
  json?: unknown;
  /** sent as is, when there is no `json` */
  text?: string;
  headers?: Record<string, string>;
  /** wait this long before answering, to provoke client timeouts */
  delayMs?: number;
}

export interface LocalServer {
  url: string;
  /** every request body received, parsed */
  bodies: unknown[];
  headers: IncomingHttpHeaders[];
  /** each request's path and query */
  paths: string[];
  close(): Promise<void>;
}

/**
 * A local HTTP server for client tests: counts requests and answers what `handle` says. Real
 * sockets, so batching, timeouts and connection errors are the client's real behaviour.
 */
/** Binds `server` to a free loopback port; closing (at teardown or earlier) drops open connections. */
export async function listenLocally(t: Teardown, server: Server): Promise<{ url: string; close: () => Promise<void> }> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  let closed: Promise<void> | undefined;
  const close = () => {
    closed ??= new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    return closed;
  };
  t.teardown(close);
  return { url: `http://127.0.0.1:${port}`, close };
}

export async function startLocalServer(t: Teardown, handle: (body: unknown, index: number) => Reply | Promise<Reply>): Promise<LocalServer> {
  const bodies: unknown[] = [];
  const headers: IncomingHttpHeaders[] = [];
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        let body: unknown;
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8'));
        } catch {
          body = Buffer.concat(chunks).toString('utf8');
        }
        bodies.push(body);
        headers.push(req.headers);
        paths.push(req.url ?? '');
        const reply = await handle(body, bodies.length - 1);
        if (reply.delayMs) await new Promise((r) => setTimeout(r, reply.delayMs));
        if (res.destroyed) return;
        const text = reply.json !== undefined ? JSON.stringify(reply.json) : (reply.text ?? '');
        res.writeHead(reply.status ?? 200, { 'content-type': reply.json !== undefined ? 'application/json' : 'text/plain', ...reply.headers });
        res.end(text);
      })().catch((err: unknown) => {
        res.writeHead(500);
        res.end(String(err));
      });
    });
  });
  const { url, close } = await listenLocally(t, server);
  return { url, bodies, headers, paths, close };
}

/**
 * A JSON-RPC proxy in front of `upstream` that lets `intercept` answer some calls itself, and
 * `rewrite` change the upstream's results (a lying endpoint).
 */
export async function startRpcProxy(
  t: Teardown,
  upstream: string,
  intercept: (call: JsonRpcRequest) => { error: { code: number; message: string; data?: unknown } } | undefined = () => undefined,
  rewrite: (call: JsonRpcRequest, result: unknown) => unknown | Promise<unknown> = (_, result) => result,
): Promise<LocalServer> {
  return startLocalServer(t, async (body) => {
    const calls = (Array.isArray(body) ? body : [body]) as JsonRpcRequest[];
    const answered = new Map<unknown, unknown>();
    const forward: JsonRpcRequest[] = [];
    for (const call of calls) {
      const own = intercept(call);
      if (own) answered.set(call.id, { jsonrpc: '2.0', id: call.id, ...own });
      else forward.push(call);
    }
    if (forward.length > 0) {
      const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(forward) });
      for (const r of (await res.json()) as { id: unknown; result?: unknown }[]) {
        const call = forward.find((c) => c.id === r.id);
        answered.set(r.id, call !== undefined && 'result' in r ? { ...r, result: await rewrite(call, r.result) } : r);
      }
    }
    const out = calls.map((c) => answered.get(c.id));
    return { json: Array.isArray(body) ? out : out[0] };
  });
}

export interface JsonRpcRequest {
  jsonrpc: '2.0';
  id: number;
  method: string;
  params: unknown[];
}

/**
 * A port nothing listens on: connections to it are refused. Taken from 10000–19999, below the kernel's range
 * of ports for `listen(0)` and outgoing connections and below `freePortGuess` (node-ports.ts), so no server
 * started later, by this test or another file's, is given it. One freed in that range could be: a test's
 * "dead" endpoint once answered, as the live server started after it had been given its port.
 */
export async function deadPort(): Promise<number> {
  if (DEAD_PORTS_BELOW_EPHEMERAL)
    for (let tries = 0; tries < 20; tries++) {
      const port = await closedPort(10_000 + Math.floor(Math.random() * 10_000)).catch(() => undefined);
      if (port !== undefined) return port;
    }
  return closedPort(0);
}

/** whether the kernel's range for `listen(0)` starts above 20000 (Linux: 32768 unless set otherwise) */
const DEAD_PORTS_BELOW_EPHEMERAL = (() => {
  try {
    return Number(readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/)[0]) > 20_000;
  } catch {
    return false;
  }
})();

/** Binds `port` on 127.0.0.1 (0: one the kernel picks) and closes it: the port, free when checked. */
function closedPort(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createNetServer();
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** How many JSON-RPC calls a request body held (a lone object counts as one). */
export function callCount(body: unknown): number {
  return Array.isArray(body) ? body.length : 1;
}

import { createServer } from 'node:http';
import { seededRandom } from '../../devchain/seeded-random.ts';
import { listenLocally } from './local-rpc-server.ts';
import type { Teardown } from './teardown.ts';

/**
 * What a bad day at an RPC provider looks like, one kind per faulted HTTP request:
 * - `http-503`, `http-429` (with `Retry-After: 0`): refused;
 * - `reset`: the connection is cut before an answer;
 * - `stall`: answered correctly, late;
 * - `malformed`: a 200 whose body is cut-off JSON;
 * - `drop-log`, `alter-log`, `empty-logs`: an `eth_getLogs` answer missing a log, with a log's
 *   `data` changed, or empty — lies only the chain's headers can expose.
 */
export type FaultKind = 'http-503' | 'http-429' | 'reset' | 'stall' | 'malformed' | 'drop-log' | 'alter-log' | 'empty-logs';
export const TRANSPORT_FAULTS: readonly FaultKind[] = ['http-503', 'http-429', 'reset', 'stall', 'malformed'];
/** every kind: the log lies are caught only with `--verify-receipts` (a dropped log or an empty answer leaves the bloom right) */
export const ALL_FAULTS: readonly FaultKind[] = [...TRANSPORT_FAULTS, 'drop-log', 'alter-log', 'empty-logs'];

export interface FaultOptions {
  seed: number;
  /** the share of HTTP requests that get a fault, 0..1 */
  rate: number;
  kinds: readonly FaultKind[];
  /** how long a `stall` waits (default 300 ms) */
  stallMs?: number;
}

export interface FaultProxy {
  url: string;
  /** faults injected so far, by kind */
  counts: Record<FaultKind, number>;
  total(): number;
  /** requests passed through */
  requests(): number;
  close(): Promise<void>;
}

type RpcCall = { id: unknown; method: string };
type RpcAnswer = { id: unknown; result?: unknown };

/**
 * A JSON-RPC proxy in front of `upstream` that injects faults into a seeded share of the requests,
 * so a run can be repeated fault for fault. Log lies apply only to requests holding `eth_getLogs`
 * with a non-empty answer; other requests pass through when such a kind is drawn.
 */
export async function startFaultProxy(t: Teardown, upstream: string, options: FaultOptions): Promise<FaultProxy> {
  const random = seededRandom(options.seed);
  const counts = Object.fromEntries(
    ['http-503', 'http-429', 'reset', 'stall', 'malformed', 'drop-log', 'alter-log', 'empty-logs'].map((k) => [k, 0]),
  ) as Record<FaultKind, number>;
  let requests = 0;
  const forward = async (body: string) => {
    const res = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    return res.text();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        requests++;
        const body = Buffer.concat(chunks).toString('utf8');
        const kind = random() < options.rate ? options.kinds[Math.floor(random() * options.kinds.length)] : undefined;
        const pick = random();
        const reply = (status: number, text: string, headers: Record<string, string> = {}) => {
          if (res.destroyed) return;
          res.writeHead(status, { 'content-type': 'application/json', ...headers });
          res.end(text);
        };
        switch (kind) {
          case 'http-503':
            counts[kind]++;
            return reply(503, 'Service Unavailable');
          case 'http-429':
            counts[kind]++;
            return reply(429, 'Too Many Requests', { 'retry-after': '0' });
          case 'reset':
            counts[kind]++;
            req.socket.destroy();
            return;
          case 'malformed': {
            counts[kind]++;
            const text = await forward(body);
            return reply(200, text.slice(0, Math.max(1, Math.floor(text.length / 2))));
          }
          case 'stall':
            counts[kind]++;
            await new Promise((r) => setTimeout(r, options.stallMs ?? 300));
            return reply(200, await forward(body));
          case 'drop-log':
          case 'alter-log':
          case 'empty-logs': {
            const text = await forward(body);
            const lied = lie(kind, body, text, pick);
            if (lied !== undefined) counts[kind]++;
            return reply(200, lied ?? text);
          }
          default:
            return reply(200, await forward(body));
        }
      })().catch(() => {
        if (!res.destroyed) res.destroy();
      });
    });
  });
  const { url, close } = await listenLocally(t, server);
  return { url, counts, total: () => Object.values(counts).reduce((a, b) => a + b, 0), requests: () => requests, close };
}

/** The answer with one `eth_getLogs` result tampered with, or undefined when the request has none worth it. */
function lie(kind: 'drop-log' | 'alter-log' | 'empty-logs', request: string, answer: string, pick: number): string | undefined {
  let calls: RpcCall[];
  let answers: RpcAnswer[];
  try {
    const parsed = JSON.parse(request) as RpcCall | RpcCall[];
    calls = Array.isArray(parsed) ? parsed : [parsed];
    const out = JSON.parse(answer) as RpcAnswer | RpcAnswer[];
    answers = Array.isArray(out) ? out : [out];
  } catch {
    return undefined;
  }
  const ids = new Set(calls.filter((c) => c.method === 'eth_getLogs').map((c) => c.id));
  const target = answers.find((a) => ids.has(a.id) && Array.isArray(a.result) && a.result.length > 0);
  if (target === undefined) return undefined;
  const logs = target.result as { data: string }[];
  const at = Math.floor(pick * logs.length);
  if (kind === 'empty-logs') target.result = [];
  else if (kind === 'drop-log') logs.splice(at, 1);
  else logs[at] = { ...logs[at]!, data: `0x${'7'.repeat(64)}` };
  const single = !request.trimStart().startsWith('[');
  return JSON.stringify(single ? answers[0] : answers);
}

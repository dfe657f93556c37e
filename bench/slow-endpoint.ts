import { createServer } from 'node:http';
import { listenLocally } from '../test/support/local-rpc-server.ts';
import type { Teardown } from '../test/support/teardown.ts';

export interface SlowEndpointOptions {
  /** added to every request before it is passed on */
  latencyMs: number;
  /** requests served at once; the others wait their turn, as behind a provider's concurrency cap */
  maxInFlight: number;
}

export interface SlowEndpoint {
  url: string;
  /** HTTP requests and JSON-RPC calls (a batch counts its calls) passed on so far, and the bytes answered */
  counts(): { requests: number; calls: number; bytes: number };
}

/**
 * A remote endpoint stood in for by a proxy in front of a local chain: each request waits its
 * turn (at most `maxInFlight` at once) and `latencyMs`, then goes to `upstream`.
 */
export async function startSlowEndpoint(td: Teardown, upstream: string, options: SlowEndpointOptions): Promise<SlowEndpoint> {
  let inFlight = 0;
  const waiting: (() => void)[] = [];
  const counts = { requests: 0, calls: 0, bytes: 0 };
  const turn = async () => {
    if (inFlight >= options.maxInFlight) await new Promise<void>((resolve) => waiting.push(resolve));
    inFlight++;
  };
  const done = () => {
    inFlight--;
    waiting.shift()?.();
  };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      void (async () => {
        await turn();
        try {
          await new Promise((resolve) => setTimeout(resolve, options.latencyMs));
          const body = Buffer.concat(chunks);
          const parsed = JSON.parse(body.toString('utf8')) as unknown;
          counts.requests++;
          counts.calls += Array.isArray(parsed) ? parsed.length : 1;
          const started = performance.now();
          const answer = await fetch(upstream, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
          const text = Buffer.from(await answer.arrayBuffer());
          counts.bytes += text.length;
          // BENCH_REMOTE_TRACE=1: when each request was answered, to see what waits on what
          if (process.env.BENCH_REMOTE_TRACE === '1') {
            const calls = (Array.isArray(parsed) ? parsed : [parsed]) as { method: string; params?: unknown[] }[];
            const what = `${calls[0]?.method}${calls.length > 1 ? ` ×${calls.length}` : ''} ${JSON.stringify(calls[0]?.params ?? []).slice(0, 80)}`;
            console.log(`  [remote] ${(started / 1000).toFixed(3)} +${(performance.now() - started).toFixed(0)} ms ${what} (${text.length} bytes)`);
          }
          res.writeHead(answer.status, { 'content-type': 'application/json' }).end(text);
        } catch (err) {
          res.writeHead(502).end(String(err));
        } finally {
          done();
        }
      })();
    });
  });
  const { url } = await listenLocally(td, server);
  return { url, counts: () => ({ ...counts }) };
}

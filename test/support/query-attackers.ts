import { isMainThread, parentPort, workerData } from 'node:worker_threads';
import { getIntrospectionQuery } from 'graphql';
import { createClient } from 'graphql-ws';
import WebSocket from 'ws';
import { overWs } from './over-ws.ts';
import { startModuleWorker } from '../../infra/threads/start-module-worker.ts';

interface AttackData {
  url: string;
  port: number;
  clients: number;
}

/** a query of about `bytes` characters, all aliases of `__schema` */
export const aliasFlood = (bytes: number) => `{ ${Array.from({ length: Math.ceil(bytes / 40) }, (_v, i) => `a${i}: __schema { types { name } }`).join(' ')} }`;

/**
 * Clients that send idx-query its most expensive refusals and answers (1 MB alias floods, the full
 * introspection query) without pause, over HTTP and graphql-ws, from a worker thread: the test's
 * own thread stays free, so what it measures is the service, not its attackers' JSON work.
 */
export function startAttackers(url: string, port: number, clients: number): { stop(): Promise<number> } {
  const worker = startModuleWorker(new URL(import.meta.url), { url, port, clients } satisfies AttackData);
  const answered = new Promise<number>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`the attackers' worker exited (${code}) before reporting`)));
  });
  return {
    /** stops the attackers once their requests in flight are answered; resolves to the number answered */
    async stop() {
      worker.postMessage('stop');
      return answered;
    },
  };
}

async function attack({ url, port, clients }: AttackData): Promise<number> {
  const introspection = getIntrospectionQuery({ descriptions: true, inputValueDeprecation: true });
  const flood = aliasFlood(1_000_000 - 100);
  let stop = false;
  let answered = 0;
  parentPort!.once('message', () => (stop = true));
  const client = async (i: number) => {
    const ws = createClient({ url: `ws://localhost:${port}/`, webSocketImpl: WebSocket, retryAttempts: 0 });
    try {
      while (!stop) {
        const body = JSON.stringify({ query: i % 2 ? flood : introspection });
        await Promise.all([
          fetch(`${url}/`, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).then((r) => r.arrayBuffer()),
          overWs(ws, i % 2 ? introspection : flood),
        ]);
        answered += 2;
      }
    } finally {
      await ws.dispose();
    }
  };
  await Promise.all(Array.from({ length: clients }, (_v, i) => client(i)));
  return answered;
}

if (!isMainThread && (workerData as AttackData | undefined)?.clients !== undefined) {
  parentPort!.postMessage(await attack(workerData as AttackData));
  parentPort!.close();
}

import { createServer } from 'node:http';
import { boundServer } from '../../../infra/http/bound-server.ts';
import { describePortHolder } from '../../../infra/http/describe-port-holder.ts';
import { listenOnFreePort } from '../../../infra/http/listen-on-free-port.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { IndexerStatus } from '../indexing/indexer-status.ts';
import { metaDocument } from './node-meta.ts';
import { createNodeMetrics } from './node-metrics.ts';
import { createNodeHttpApp, type Health } from './node-http.ts';
import type { createNodeStatusPage } from './node-status-page.ts';

/** What the node learns as it starts, read by /health and /meta at each request. */
export interface NodeFacts {
  health: Health;
  genesisHash: string | undefined;
  /** until the chain answers: the family's, when it knows it without asking (left out of /meta otherwise) */
  specName: string | undefined;
  chainSdkVersion: string;
  usingDictionary: boolean;
}

export interface ServeNodeHttpInput {
  /** the port asked for; a busy one is replaced by a free one, with a warning */
  port: number;
  status: IndexerStatus;
  facts: NodeFacts;
  statusPage: ReturnType<typeof createNodeStatusPage> | undefined;
  chainId: string;
  version: string;
  startedAt: number;
  log: Logger;
}

/** idx-node's HTTP server (/health, /meta, /ready, /metrics, the status page): listening, its address logged. */
export async function serveNodeHttp(input: ServeNodeHttpInput): Promise<{ url: string; port: number; close: () => Promise<void> }> {
  const { facts, status, statusPage, log } = input;
  const server = boundServer(
    createServer(
      createNodeHttpApp(
        {
          health: () => facts.health,
          ready: () => status.caughtUp,
          meta: () =>
            metaDocument(status, {
              version: input.version,
              startedAt: input.startedAt,
              chain: { chain: input.chainId, specName: facts.specName, genesisHash: facts.genesisHash, chainSdkVersion: facts.chainSdkVersion },
              apiConnected: facts.health.healthy,
              usingDictionary: facts.usingDictionary,
            }),
        },
        createNodeMetrics(status),
        statusPage,
      ).callback(),
    ),
  );
  const close = async () => {
    // Keep-alive clients (a monitor polling /meta) would hold close() open for ever.
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  };
  const port = await listenOnFreePort(server, input.port).catch(async (err: unknown) => {
    await close();
    throw err;
  });
  const url = `http://localhost:${port}`;
  if (port !== input.port) {
    log.warn(`port ${input.port} is ${await describePortHolder(input.port)}; serving on port ${port} instead (choose one with -p, --port)`, {
      event: 'port-busy',
      busyPort: input.port,
      port,
    });
  }
  // scripts read the address from this line (or its fields with --output-fmt=json)
  log.info(`serving /health, /meta, /ready and /metrics on ${url}`, {
    event: 'listening',
    port,
    url,
    meta: `${url}/meta`,
    ...(statusPage !== undefined && { statusPage: `${url}/` }),
  });
  if (statusPage !== undefined) log.info(`status page: ${url}/ (open it in a browser)`);
  return { url, port, close };
}

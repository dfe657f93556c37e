import type { DataSource } from '../../../domain/project/project-model.ts';
import { redactUrl } from '../../../infra/rpc/redact-url.ts';
import type { IndexerStatus } from '../indexing/indexer-status.ts';
import type { LoggedProblem } from './last-problem.ts';
import type { Health } from './node-http.ts';
import { percentDone } from '../indexing/progress-line.ts';
import type { RateHistory, RatePoint } from './rate-history.ts';

/** What the status page shows, as `GET /status` answers it (with `--status-page`). */
export interface StatusDocument {
  project: string;
  schema: string;
  chain?: string;
  specName?: string;
  indexerNodeVersion: string;
  /** seconds since the node started */
  uptime: number;
  health: Health;
  caughtUp: boolean;
  startHeight?: number;
  /** the last block committed */
  indexedHeight?: number;
  processingHeight?: number;
  bestHeight?: number;
  finalizedHeight?: number;
  /** where indexing is heading: the final block (the best with --unfinalized-blocks), or the data sources' last end block */
  targetHeight?: number;
  /** 0..100, of the blocks from the start to the target */
  percent?: number;
  blocksPerSecond?: number;
  eventsPerSecond?: number;
  /** seconds left at the pace of the last minute; 0 when caught up, absent while unknown */
  etaSeconds?: number;
  /** the pace over the last minutes, oldest first */
  history: RatePoint[];
  lastProblem?: LoggedProblem;
  endpoints: string[];
  dataSources: { kind: string; startBlock: number; endBlock?: number; address?: string; handlers: string[] }[];
  links: { meta: string; metrics: string; health: string; playground?: string };
}

export interface StatusFacts {
  project: string;
  schema: string;
  version: string;
  startedAt: number;
  chain: { chain?: string; specName?: string };
  health: Health;
  endpoints: readonly string[];
  dataSources: readonly DataSource[];
  lastProblem?: LoggedProblem;
  /** the GraphQL playground serving this project, when the node knows of one */
  playground?: string;
}

/** The pace an ETA is taken from: long enough not to jump with each batch, short enough to follow a change. */
const ETA_WINDOW_MS = 60_000;

export function statusDocument(status: IndexerStatus, history: RateHistory, facts: StatusFacts, now = Date.now()): StatusDocument {
  const points = history.points();
  const latest = points.at(-1);
  const target = status.targetHeight;
  const share = target === undefined ? undefined : percentDone(status.startHeight, status.lastProcessedHeight, target);
  const left = target === undefined ? undefined : Math.max(0, target - (status.lastProcessedHeight ?? (status.startHeight ?? 0) - 1));
  const pace = history.blocksPerSecondOver(ETA_WINDOW_MS);
  const eta = left === undefined ? undefined : left === 0 ? 0 : pace !== undefined && pace > 0 ? Math.round(left / pace) : undefined;
  return {
    project: facts.project,
    schema: facts.schema,
    ...(facts.chain.chain !== undefined && { chain: facts.chain.chain }),
    specName: facts.chain.specName,
    indexerNodeVersion: facts.version,
    uptime: Math.round((now - facts.startedAt) / 1000),
    health: facts.health,
    caughtUp: status.caughtUp,
    ...defined({
      startHeight: status.startHeight,
      indexedHeight: status.lastProcessedHeight,
      processingHeight: status.currentProcessingHeight,
      bestHeight: status.bestHeight,
      finalizedHeight: status.finalizedHeight,
      targetHeight: target,
      percent: share === undefined ? undefined : Math.floor(share * 1000) / 10,
      blocksPerSecond: latest?.blocksPerSecond,
      eventsPerSecond: latest?.eventsPerSecond,
      etaSeconds: eta,
      lastProblem: facts.lastProblem,
    }),
    history: points,
    // provider URLs carry API keys: the page shows host and port only
    endpoints: facts.endpoints.map(redactUrl),
    dataSources: facts.dataSources.map((d) => ({
      kind: d.kind,
      startBlock: d.startBlock,
      ...defined({ endBlock: d.endBlock, address: d.options?.address }),
      handlers: d.mapping.handlers.map((h) => `${h.handler} (${'processorKind' in h ? h.processorKind : h.kind})`),
    })),
    links: { meta: '/meta', metrics: '/metrics', health: '/health', ...(facts.playground !== undefined && { playground: facts.playground }) },
  };
}

function defined<T extends Record<string, unknown>>(fields: T): Partial<T> {
  return Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined)) as Partial<T>;
}

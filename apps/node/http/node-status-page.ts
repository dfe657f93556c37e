import { join } from 'node:path';
import { readServiceUrl } from '../../../infra/http/service-url-file.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import type { IndexerStatus } from '../indexing/indexer-status.ts';
import type { LoggedProblem } from './last-problem.ts';
import type { Health, StatusPage } from './node-http.ts';
import { createRateHistory } from './rate-history.ts';
import { statusDocument, type StatusFacts } from './status-document.ts';
import { statusPageHtml } from './status-page.ts';

/** One sample every 2 s, kept 10 minutes: the chart's span, in a few kilobytes. */
const SAMPLE_EVERY_MS = 2000;
const SAMPLES_KEPT = 300;

export interface NodeStatusPageInput {
  status: IndexerStatus;
  project: LoadedProject;
  /** the name the page shows: --idx-name, else the manifest's name, else the folder's */
  name: string;
  schema: string;
  version: string;
  startedAt: number;
  endpoints: readonly string[];
  /** read at each poll: they change as the node starts, fails or meets the chain */
  live: () => { health: Health; chain: StatusFacts['chain']; lastProblem?: LoggedProblem };
}

/**
 * `idx-node --status-page`: the page and its figures, with the pace sampled in the background
 * from now on (so the chart has a history when the page is opened). The playground link comes from
 * the idx-query serving the same project's embedded database, when one runs.
 */
export function createNodeStatusPage(input: NodeStatusPageInput): StatusPage & { close(): void } {
  const history = createRateHistory({ keep: SAMPLES_KEPT });
  history.sample(input.status, Date.now());
  const timer = setInterval(() => history.sample(input.status, Date.now()), SAMPLE_EVERY_MS);
  timer.unref();
  const dataDir = join(input.project.root, '.idx-data');
  return {
    html: statusPageHtml(input.name),
    async document() {
      const query = await readServiceUrl(dataDir, 'idx-query');
      const live = input.live();
      return statusDocument(input.status, history, {
        project: input.name,
        schema: input.schema,
        version: input.version,
        startedAt: input.startedAt,
        chain: live.chain,
        health: live.health,
        endpoints: input.endpoints,
        dataSources: input.project.manifest.dataSources,
        ...(live.lastProblem !== undefined && { lastProblem: live.lastProblem }),
        ...(query?.page === true && { playground: `${query.url}/` }),
      });
    },
    close: () => clearInterval(timer),
  };
}

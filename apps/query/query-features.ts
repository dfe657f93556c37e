import { join } from 'node:path';
import { indexerStatusPage } from './indexer-status-page.ts';
import { playgroundFeature } from './playground/playground-feature.ts';
import type { QueryOptions } from './query-options.ts';
import type { QueryFeature } from './run-query.ts';
import { subgraphFeature } from './subgraph/subgraph-feature.ts';
import { subscriptionFeature } from './subscriptions/subscription-feature.ts';

/**
 * The parts `--subscription`, `--subgraph` and `--playground` turn on; runQuery keeps those whose
 * flag is given. A wrong `--playground-settings` fails here, before anything starts.
 */
export function queryFeatures(options: QueryOptions): QueryFeature[] {
  return [
    subscriptionFeature({ queryComplexity: options.queryComplexity }),
    subgraphFeature({ queryComplexity: options.queryComplexity }),
    ...(options.playground
      ? [
          playgroundFeature({
            settings: options.playgroundSettings,
            subscriptions: options.subscription,
            statusPage: indexerStatusPage({ dataDir: join(options.idx, '.idx-data'), ...(options.indexer !== undefined && { indexer: options.indexer }) }),
          }),
        ]
      : []),
  ];
}

import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import type { IndexerStatus } from '../indexing/indexer-status.ts';

/** `/metrics`: the process's own (prefixed `idx_`) and where indexing stands, read from `status` when scraped. */
export function createNodeMetrics(status: IndexerStatus): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'idx_' });
  const gauge = (name: string, help: string, read: () => number) =>
    new Gauge({
      name,
      help,
      registers: [registry],
      collect() {
        this.set(read());
      },
    });
  gauge('idx_last_processed_height', 'last block committed to the database', () => status.lastProcessedHeight ?? 0);
  gauge('idx_target_height', 'height indexing is heading for', () => status.targetHeight ?? 0);
  gauge('idx_blocks_processed', 'blocks processed since start', () => status.blocksProcessed);
  gauge('idx_events_processed', 'handler invocations since start', () => status.eventsProcessed);
  return registry;
}

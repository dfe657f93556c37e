import t from 'tap';
import { IdxError } from '../../../domain/errors.ts';
import { createStoreCache } from '../../../domain/entities/store-cache.ts';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { RpcUnreachableError } from '../../../infra/rpc/rpc-error.ts';
import { blocksWithoutLogs, numberedBlock } from '../../../test/support/fake-blocks.ts';
import { FAKE_INDEXER_SETTINGS, oneBlockHandler } from '../../../test/support/fake-chain.ts';
import { DEFAULT_FETCH_RETRY, nextFetchRetry } from './fetch-retry.ts';
import { createIndexer } from './indexer.ts';

const notFound = new IdxError('CHAIN_BLOCK_NOT_FOUND', 'the endpoint has no block 12', { retryable: true });
const reset = new IdxError('RPC_UNREACHABLE', 'socket hang up', { retryable: true });

t.test('transient faults get 5 tries in ~8 s; a lagging endpoint is waited for minutes with waits capped at 10 s', async (t) => {
  const waits = (err: unknown) => {
    const out: number[] = [];
    let waited = 0;
    for (let attempt = 1; ; attempt++) {
      const wait = nextFetchRetry(err, attempt, waited);
      if (wait === undefined) return out;
      out.push(wait);
      waited += wait;
    }
  };
  t.same(waits(reset), [500, 1000, 2000, 4000]);
  const lagging = waits(notFound);
  t.same(lagging.slice(0, 7), [500, 1000, 2000, 4000, 8000, 10_000, 10_000]);
  const total = lagging.reduce((a, b) => a + b, 0);
  t.ok(total <= DEFAULT_FETCH_RETRY.laggingPatienceMs && total > DEFAULT_FETCH_RETRY.laggingPatienceMs - 10_000, `waits ${total} ms in all, about 5 minutes`);
  t.equal(waits(new IdxError('RPC_ERROR', 'header not found', { retryable: true })).length, lagging.length, "geth's header not found is lagging too");
  t.same(waits(new IdxError('CHAIN_ID_MISMATCH', 'wrong chain')), [], 'final errors are not retried');
  t.same(waits(new Error('bug')), []);
});

t.test("an endpoint's Retry-After sets the wait, up to the longest wait of the policy", async (t) => {
  const limited = (ms: number) => new RpcUnreachableError('eth_getLogs', 1, [{ endpoint: 'http://a', error: 'HTTP 429' }], ms);
  t.equal(nextFetchRetry(limited(3000), 1, 0), 3000, 'asked for 3 s: waits 3 s, not 0.5');
  t.equal(nextFetchRetry(limited(0), 1, 0), 500, 'no Retry-After: the backoff');
  t.equal(nextFetchRetry(limited(120_000), 1, 0), DEFAULT_FETCH_RETRY.maxWaitMs, 'capped');
  t.equal(nextFetchRetry(limited(3000), 5, 0), undefined, 'still gives up after the tries of the policy');
});

t.test('the indexer rides out an endpoint that answers null for a block for longer than the transient retries allow', async (t) => {
  const caughtUp = blocksWithoutLogs(numberedBlock);
  const committed: number[] = [];
  const store = {
    async flush(batch: { metadata?: Record<string, unknown> }) {
      committed.push(batch.metadata!.lastProcessedHeight as number);
    },
    get: async () => undefined,
    getByField: async () => [],
    getByFields: async () => [],
    getMetadata: async () => ({}),
  } as unknown as EntityStore;
  let misses = 0;
  const lines: string[] = [];
  const logger = createLogger({ level: 'warn', format: 'json', write: (line: string) => void lines.push(line) });
  const indexer = createIndexer({
    source: { bestHeight: async () => 5, finalizedHeight: async () => 5 } as never,
    fetcher: {
      ...caughtUp,
      async fetch(plan, range) {
        // the endpoint is behind: 8 answers of null, more than the 5 tries a transient fault gets
        if (misses < 8) {
          misses++;
          throw notFound;
        }
        return caughtUp.fetch(plan, range);
      },
    },
    store,
    cache: createStoreCache(store, { queryLimit: 100, getCacheSize: 0 }),
    runner: { runBlock: async () => ({ created: [] }) },
    ...oneBlockHandler(),
    logger,
    settings: { ...FAKE_INDEXER_SETTINGS, pollIntervalMs: 10, stopAtHeight: 5, fetchRetry: { baseMs: 1, maxWaitMs: 4 } },
  });
  await indexer.run(new AbortController().signal);
  t.equal(misses, 8);
  t.equal(committed.at(-1), 5, 'indexed once the endpoint caught up');
  const retries = lines
    .map((l) => JSON.parse(l) as { event?: string; behind?: boolean; attempt?: number; code?: string })
    .filter((r) => r.event === 'fetch-retry');
  t.same(
    retries.map((r) => [r.attempt, r.behind, r.code]),
    Array.from({ length: 8 }, (_, i) => [i + 1, true, 'CHAIN_BLOCK_NOT_FOUND']),
    'each retry is logged with its attempt, as waiting for a lagging endpoint',
  );
  t.match(lines[0], /the endpoint is behind; waiting up to \d+ s more for it/, 'and says so in words');
});

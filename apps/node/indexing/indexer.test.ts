import t from 'tap';
import { blocksWithoutLogs, numberedBlock } from '../../../test/support/fake-blocks.ts';
import {
  blockHandlerSource,
  createFakeChain,
  createMemoryStore,
  FAKE_INDEXER_SETTINGS,
  fakeIndexer,
  oneBlockHandler,
} from '../../../test/support/fake-chain.ts';
import { scaleBatchSize } from './scale-batch-size.ts';

t.test('--scale-batch-size halves batches under memory pressure and grows them back to --batch-size', async (t) => {
  let pressure = 0.9;
  const settings = { batchSize: 100, memoryPressure: () => pressure };
  t.equal(scaleBatchSize(100, settings), 50);
  t.equal(scaleBatchSize(1, settings), 1, 'never below one block');
  pressure = 0.5;
  t.equal(scaleBatchSize(50, settings), 50, 'between the marks it stays');
  pressure = 0.1;
  t.equal(scaleBatchSize(50, settings), 100);
  t.equal(scaleBatchSize(100, settings), 100, 'never above --batch-size');
  t.equal(scaleBatchSize(7, { batchSize: 100 }), 100, 'without the flag the batch is --batch-size');
});

/** An indexer over 30 blocks of a fake chain, each block's handler taking `blockMs`, with a store recording each commit. */
async function fakeRun(
  settings: { batchSize: number; flushAsync: boolean; flushIntervalMs: number; flushUpperLimit?: number },
  blockMs: number,
  flushMs: number,
  /** the entity each block writes (one that every block updates, by default) */
  idOf: (height: number) => string = () => 'a',
) {
  const { createIndexer } = await import('./indexer.ts');
  const { createStoreCache } = await import('../../../domain/entities/store-cache.ts');
  const { createLogger } = await import('../../../infra/logging/create-logger.ts');
  type Store = import('../../../domain/entities/entity-store.ts').EntityStore;
  type FlushBatch = import('../../../domain/entities/entity-store.ts').FlushBatch;

  let inFlight = 0;
  let maxInFlight = 0;
  let maxPending = 0;
  const committed: number[] = [];
  const store = {
    async flush(batch: FlushBatch) {
      inFlight++;
      maxInFlight = Math.max(maxInFlight, inFlight);
      await new Promise((r) => setTimeout(r, flushMs));
      committed.push(batch.metadata!.lastProcessedHeight as number);
      inFlight--;
    },
    get: async () => undefined,
    getByField: async () => [],
    getByFields: async () => [],
    getMetadata: async () => ({}),
  } as unknown as Store;
  const cache = createStoreCache(store, { queryLimit: 100, getCacheSize: 0 });
  const indexer = createIndexer({
    source: { bestHeight: async () => 30, finalizedHeight: async () => 30 } as never,
    fetcher: blocksWithoutLogs(numberedBlock),
    store,
    cache,
    runner: {
      runBlock: async (height) => {
        await new Promise((r) => setTimeout(r, blockMs));
        cache.set('Account', idOf(height), { id: idOf(height), n: height }, height);
        maxPending = Math.max(maxPending, cache.pendingCount());
        return { created: [] };
      },
    },
    ...oneBlockHandler(),
    logger: createLogger({ level: 'silent', format: 'json' }),
    settings: { ...FAKE_INDEXER_SETTINGS, ...settings, pollIntervalMs: 10, stopAtHeight: 30 },
  });
  await indexer.run(new AbortController().signal);
  return { committed, maxInFlight, maxPending };
}

t.test('flushes never overlap and commit in order, even when they are scheduled faster than they finish', async (t) => {
  // Blocks take about half as long as a flush: a flush is scheduled while the previous one is still writing.
  const { committed, maxInFlight } = await fakeRun({ batchSize: 1, flushAsync: true, flushIntervalMs: 0 }, 8, 15);
  t.equal(maxInFlight, 1, 'one flush at a time');
  t.same(
    committed,
    [...committed].sort((a, b) => a - b),
    'in order',
  );
  t.equal(committed[committed.length - 1], 30);
  t.ok(committed.length > 1, 'several flushes were scheduled');
});

t.test('a database slower than the handlers: indexing waits at --store-cache-upper-limit records, so memory does not grow with the run', async (t) => {
  // a new entity every block; a flush takes as long as 5 blocks; at most 6 records held
  const { committed, maxInFlight, maxPending } = await fakeRun(
    { batchSize: 1, flushAsync: true, flushIntervalMs: 0, flushUpperLimit: 6 },
    4,
    20,
    (h) => `a${h}`,
  );
  t.ok(maxPending <= 7, `at most the upper limit and the block being written: ${maxPending} records held`);
  t.equal(maxInFlight, 1);
  t.equal(committed[committed.length - 1], 30);
  t.ok(committed.length < 30, `flushes collect behind the one committing: ${committed.length} flushes for 30 blocks`);
});

t.test('slow handlers in a long range: blocks commit every --store-flush-interval, not only at the end of the range', async (t) => {
  for (const flushAsync of [false, true]) {
    // one range of 30 blocks of 10 ms each; a flush is due every 60 ms
    const { committed, maxInFlight } = await fakeRun({ batchSize: 100, flushAsync, flushIntervalMs: 60 }, 10, 1);
    t.ok(committed.length >= 3, `${flushAsync ? 'async' : 'sync'}: ${committed.length} commits in one range`);
    t.ok(committed[0]! < 30, 'the first commit comes before the range ends');
    t.equal(committed[committed.length - 1], 30);
    t.same(
      committed,
      [...committed].sort((a, b) => a - b),
      'in order',
    );
    t.equal(maxInFlight, 1);
  }
});

/**
 * A restart over a database that indexed up to block 20 of branch `a` (its stored block: 20 of
 * `a`), against a chain whose blocks are of `branch` and whose head is `best()`: what it commits,
 * what it logs, and how it ends.
 */
async function resumeRun(opts: { branch: string; best: () => number; stored?: unknown; kept?: unknown; unfinalizedBlocks?: boolean }) {
  const { createIndexer } = await import('./indexer.ts');
  const { createStoreCache } = await import('../../../domain/entities/store-cache.ts');
  const { createLogger } = await import('../../../infra/logging/create-logger.ts');
  type Store = import('../../../domain/entities/entity-store.ts').EntityStore;
  type FlushBatch = import('../../../domain/entities/entity-store.ts').FlushBatch;

  const committed: Record<string, unknown>[] = [];
  const rewoundTo: number[] = [];
  const meta: Record<string, unknown> = { lastProcessedHeight: 20, lastVerifiableBlock: 'stored' in opts ? opts.stored : { height: 20, hash: '0xa20' } };
  if (opts.kept !== undefined) meta.unfinalizedBlocks = opts.kept;
  const store = {
    async flush(batch: FlushBatch) {
      committed.push(batch.metadata!);
    },
    get: async () => undefined,
    getByField: async () => [],
    getByFields: async () => [],
    getMetadata: async (keys: readonly string[]) => Object.fromEntries(keys.filter((k) => k in meta).map((k) => [k, meta[k]])),
    getLatestPoi: async () => undefined,
    async rewind(height: number, entries: Record<string, unknown>) {
      rewoundTo.push(height);
      Object.assign(meta, entries, { lastProcessedHeight: height });
    },
  } as unknown as Store;
  // Below the fork (block 10) both branches are one chain.
  const hashAt = (h: number) => `0x${h <= 10 ? 'a' : opts.branch}${h}`;
  const block = (height: number) => ({ height, hash: hashAt(height), parentHash: hashAt(height - 1), timestamp: height * 12, transactionHashes: [] });
  const cache = createStoreCache(store, { queryLimit: 100, getCacheSize: 0 });
  const lines: string[] = [];
  const asked: number[][] = [];
  const indexer = createIndexer({
    source: {
      bestHeight: async () => opts.best(),
      finalizedHeight: async () => opts.best(),
      getBlockRefs: async (heights: readonly number[]) => {
        asked.push([...heights]);
        return heights.map(block);
      },
    },
    fetcher: blocksWithoutLogs(block),
    store,
    cache,
    runner: { runBlock: async () => ({ created: [] }) },
    ...oneBlockHandler(),
    logger: createLogger({ level: 'info', format: 'json', write: (line) => lines.push(line) }),
    settings: { ...FAKE_INDEXER_SETTINGS, unfinalizedBlocks: opts.unfinalizedBlocks ?? false, stopAtHeight: 30, fetchRetry: { attempts: 1 } },
  });
  const error = await indexer.run(new AbortController().signal).then(
    () => undefined,
    (err: unknown) => err as { code?: string; message: string },
  );
  return { committed, rewoundTo, lines, asked, error };
}

t.test('a restart on the chain it indexed asks for the stored block once and goes on, storing the newest block it saw', async (t) => {
  const r = await resumeRun({ branch: 'a', best: () => 30 });
  t.equal(r.error, undefined);
  t.same(
    r.asked.filter((h) => h.length === 1 && h[0] === 20),
    [[20]],
    'one look at block 20',
  );
  t.equal(r.committed[r.committed.length - 1]!.lastProcessedHeight, 30);
  t.same(r.committed[r.committed.length - 1]!.lastVerifiableBlock, { height: 30, hash: '0xa30' }, 'committed with the blocks');
});

t.test('a restart on another chain with the same genesis refuses before indexing anything', async (t) => {
  const r = await resumeRun({ branch: 'b', best: () => 30 });
  t.equal(r.error?.code, 'CHAIN_HISTORY_MISMATCH');
  t.match(r.error?.message, /block 20 is 0xb20, but this database indexed block 20 as 0xa20/);
  t.same(r.committed, [], 'nothing committed');
});

t.test('a schema written before the stored block existed resumes without a check', async (t) => {
  const r = await resumeRun({ branch: 'b', best: () => 30, stored: null });
  t.equal(r.error, undefined);
  t.same(r.asked, [], 'the chain is not asked for any block identity');
});

t.test('a chain below the stored block: the node waits, says why once, and checks when the chain gets there', async (t) => {
  let looks = 0;
  const r = await resumeRun({ branch: 'b', best: () => (++looks < 4 ? 12 : 30) });
  t.equal(r.error?.code, 'CHAIN_HISTORY_MISMATCH');
  t.equal(r.lines.filter((l) => l.includes('"event":"chain-shorter"')).length, 1, 'told once');
  t.match(r.lines.join(''), /the chain's newest block is 12, below block 20 already indexed/);
  t.same(r.committed, []);
});

t.test('with blocks kept for forks, a difference among them is rewound to the common ancestor instead', async (t) => {
  const kept = Array.from({ length: 11 }, (_, i) => {
    const h = 10 + i;
    return { blockHeight: h, blockHash: `0xa${h}`, parentHash: `0xa${h - 1}`, timestamp: h * 12 };
  });
  const r = await resumeRun({ branch: 'b', best: () => 30, kept, unfinalizedBlocks: true });
  t.equal(r.error, undefined);
  t.same(r.rewoundTo, [10], 'rewound to block 10, the last both branches share');
  t.equal(r.committed[r.committed.length - 1]!.lastProcessedHeight, 30);
  t.same(r.committed[r.committed.length - 1]!.lastVerifiableBlock, { height: 30, hash: '0xb30' });
});

t.test('startHeight: with nothing indexed yet, indexing begins there instead of at the first data source block', async (t) => {
  const seen: number[] = [];
  const { indexer, status } = fakeIndexer(createFakeChain(30), createMemoryStore(), {
    dataSources: [blockHandlerSource('h', 1)],
    handlers: { h: ({ height }) => void seen.push(height) },
    settings: { startHeight: 12, stopAtHeight: 15 },
  });
  await indexer.run(new AbortController().signal);
  t.same(seen, [12, 13, 14, 15]);
  t.equal(status.lastProcessedHeight, 15);
  t.equal(status.startHeight, 12);
});

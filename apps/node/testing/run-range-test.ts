import { relative } from 'node:path';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { bypassedHeights } from '../../../domain/project/bypass-blocks.ts';
import { readTestSnapshot, takeSnapshot, type StoredVersion } from '../../../domain/testing/entity-snapshot.ts';
import type { RangeTestCase } from '../../../domain/testing/range-test.ts';
import { snapshotDifferences } from '../../../domain/testing/snapshot-differences.ts';
import { expectedChecks, testFailed, type SnapshotCheck, type TestOutcome } from '../../../domain/testing/test-outcome.ts';
import { createIndexer, type IndexerSettings } from '../indexing/indexer.ts';
import { createIndexerStatus } from '../indexing/indexer-status.ts';
import { DEFAULT_BATCH_SIZE, type NodeOptions } from '../start-up/node-options.ts';
import { startMapping } from '../start-up/start-mapping.ts';
import type { TestRunContext } from './run-subql-test.ts';
import { readSnapshotFile, snapshotPath, writeSnapshot } from './snapshot-file.ts';
import { openTestStore } from './test-store.ts';

/** Where a range test comes from and how its snapshot is treated. */
export interface RangeTestRun {
  /** the built test file that registered it: names its snapshot file */
  file: string;
  /** --update-snapshots: a snapshot that differs is rewritten instead of failing the test */
  updateSnapshots: boolean;
  /** stops indexing after the current block (the test then fails) */
  signal: AbortSignal;
}

type Mapping = Awaited<ReturnType<typeof startMapping>>;

/**
 * One `subqlRangeTest`: in a fresh store and sandbox, the dependent entities stored at `from`,
 * then blocks `from..to` indexed by the node's own indexer (every data source and handler of the
 * manifest, data sources created from templates, the same writes and block ranges), whether or
 * not the blocks are final; then each expected entity compared with its latest version, and with
 * `snapshot` every version the store holds compared with the test file's snapshot file (written
 * when it has none for the test, rewritten with --update-snapshots).
 */
export async function runRangeTest(ctx: TestRunContext, test: RangeTestCase, run: RangeTestRun): Promise<TestOutcome> {
  const failed = (kind: 'fetch' | 'runtime' | 'snapshot', err: unknown) => testFailed(test, kind, err);
  const fetchErrors = new WeakSet<object>();
  try {
    const best = await ctx.chain.source.bestHeight();
    if (test.to > best) return failed('fetch', `blocks ${test.from}..${test.to}: the chain's best block is ${best}, so block ${test.to} does not exist yet`);
  } catch (err) {
    return failed('fetch', err);
  }
  const opened = await openTestStore({ options: ctx.options, model: ctx.files.model, schema: ctx.schema, env: ctx.env, logger: ctx.logger });
  try {
    const mapping = await startMapping({ ...ctx, store: opened.store });
    try {
      try {
        for (const e of test.dependentEntities) mapping.seed(e.entity, e.id, e.data, test.from);
        const reached = await indexRange(ctx, mapping, opened.store, test, run.signal, fetchErrors);
        // (the loop also ends early, and rightly, when every data source has ended)
        if (run.signal.aborted) return failed('runtime', `stopped after block ${reached}, before the range's end (${test.to})`);
      } catch (err) {
        return failed(err !== null && typeof err === 'object' && fetchErrors.has(err) ? 'fetch' : 'runtime', err);
      }
      const checks = await expectedChecks(test.expectedEntities, (entity, id) => mapping.cache.get(entity, id));
      if (!test.snapshot) return { name: test.name, checks };
      try {
        return { name: test.name, checks, snapshot: await checkSnapshot(ctx.project.root, test, await opened.versions(), run) };
      } catch (err) {
        return failed('snapshot', err);
      }
    } finally {
      mapping.dispose();
    }
  } finally {
    await opened.close();
  }
}

/**
 * Indexes `from..to` with the node's indexer, as `idx-node` would with --unfinalized-blocks (a
 * test's blocks need not be final), stopping at `to`; the last height committed. Errors of the
 * chain reads are put in `fetchErrors`, so that the report tells them from the handlers'.
 */
async function indexRange(
  ctx: TestRunContext,
  mapping: Mapping,
  store: EntityStore,
  test: RangeTestCase,
  signal: AbortSignal,
  fetchErrors: WeakSet<object>,
): Promise<number> {
  const marked =
    <A extends unknown[], R>(f: (...a: A) => Promise<R>) =>
    (...a: A) =>
      f(...a).catch((err: unknown) => {
        if (err !== null && typeof err === 'object') fetchErrors.add(err);
        throw err;
      });
  const fetcher = ctx.chain.fetcher([], ctx.logger, () => undefined);
  const source = ctx.chain.source;
  try {
    const status = createIndexerStatus();
    const bypassed = bypassedHeights(ctx.project.manifest.network?.bypassBlocks);
    const indexer = createIndexer({
      source: {
        bestHeight: marked(() => source.bestHeight()),
        finalizedHeight: marked(() => source.finalizedHeight()),
        getBlockRefs: marked((h) => source.getBlockRefs(h)),
      },
      fetcher: {
        parallelism: fetcher.parallelism,
        close: () => fetcher.close(),
        fetch: marked((plan, range, index: number) => fetcher.fetch(plan, range, index)),
      },
      store,
      cache: mapping.cache,
      runner: mapping.runner,
      dataSources: ctx.project.manifest.dataSources,
      templates: ctx.project.manifest.templates,
      ...(bypassed !== undefined && { bypassed }),
      family: ctx.chain.family(ctx.files, mapping.processors),
      logger: ctx.logger,
      status,
      settings: rangeSettings(ctx.options, test),
    });
    await indexer.run(signal);
    return status.lastProcessedHeight ?? test.from - 1;
  } finally {
    await fetcher.close();
  }
}

/** The indexer's settings for a range test: the node's, but from `from` to `to`, up to the best block, each flush awaited. */
function rangeSettings(options: NodeOptions, test: RangeTestCase): IndexerSettings {
  return {
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    flushAsync: false,
    flushIntervalMs: options.storeFlushInterval * 1000,
    flushThreshold: options.storeCacheThreshold,
    flushUpperLimit: options.storeCacheUpperLimit,
    unfinalizedBlocks: true,
    blockConfirmations: options.blockConfirmations,
    pollIntervalMs: 1000,
    startHeight: test.from,
    stopAtHeight: test.to,
  };
}

/** The store's versions against the test's entry in the snapshot file: matched, written (none yet), updated (--update-snapshots) or differing. */
async function checkSnapshot(root: string, test: RangeTestCase, versions: readonly StoredVersion[], run: RangeTestRun): Promise<SnapshotCheck> {
  const path = snapshotPath(root, run.file);
  const file = relative(root, path);
  const actual = takeSnapshot(test.from, test.to, versions);
  const check = (status: SnapshotCheck['status'], differences: SnapshotCheck['differences'] = []): SnapshotCheck => ({
    file,
    rows: actual.rows.length,
    status,
    differences,
  });
  const existing = await readSnapshotFile(path);
  const entry = existing !== undefined && Object.hasOwn(existing, test.name) ? existing[test.name] : undefined;
  if (entry === undefined) {
    await writeSnapshot(path, existing, test.name, actual);
    return check('written');
  }
  let differences;
  try {
    differences = snapshotDifferences(readTestSnapshot(entry, `${file}: the snapshot of "${test.name}"`), actual);
  } catch (err) {
    if (!run.updateSnapshots) throw err;
  }
  if (differences !== undefined && differences.length === 0) return check('matched');
  if (!run.updateSnapshots) return check('differs', differences);
  await writeSnapshot(path, existing, test.name, actual);
  return check('updated');
}

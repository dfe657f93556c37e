import type { VerifiableBlock } from '../../../domain/blocks/indexed-history.ts';
import type { EntityStore, PoiRow, StoreOperation } from '../../../domain/entities/entity-store.ts';
import { poiRow, type Sha256 } from '../../../domain/entities/proof-of-index.ts';
import type { StoreCacheBooks } from '../../../domain/entities/store-cache.ts';
import { flushStep, type FlushStep } from '../../../domain/entities/flush-step.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { IndexerStatus } from './indexer-status.ts';

export interface FlushSettings {
  /** --store-cache-async */
  flushAsync: boolean;
  /** --store-flush-interval, in ms */
  flushIntervalMs: number;
  /** --store-cache-threshold (sync mode) */
  flushThreshold: number;
  /** --store-cache-upper-limit (async mode): records held before processing waits for the flush committing */
  flushUpperLimit: number;
  /** --proof-of-index: the project id the hashes cover */
  proofOfIndex?: { projectId: string; sha256: Sha256 };
}

export interface FlushPipelineDeps {
  store: Pick<EntityStore, 'flush'>;
  cache: StoreCacheBooks;
  status: IndexerStatus;
  logger: Logger;
  settings: FlushSettings;
  /** --csv-out-dir: writes a flush's rows before its commit; what it returns is committed as `_metadata.csvExport` */
  exporter?: { append(operations: readonly StoreOperation[]): Promise<unknown> };
  /** what other stages changed since the last flush, committed with it (data sources, unfinalized blocks) */
  metadataOf: (height: number) => Record<string, unknown>;
}

/** A processed block, as the flush needs it. */
export interface CompletedBlock {
  height: number;
  hash?: string;
  timestamp?: number;
}

export type FlushPipeline = ReturnType<typeof createFlushPipeline>;

/**
 * Collects the writes of whole blocks and commits them with `lastProcessedHeight` in one
 * transaction per flush. Flushes commit one after another in the order taken: two in flight at
 * once would each insert a live version of the same entity. After a failed flush nothing later is
 * written, and the failure is raised at the next check.
 */
export function createFlushPipeline(deps: FlushPipelineDeps) {
  const { cache, status, settings } = deps;
  let operations: StoreOperation[] = [];
  let poi: PoiRow[] = [];
  let mark = 0;
  let height: number | undefined;
  let blockTimestamp: number | undefined;
  // the newest block with a known hash completed since the last flush: what a restart compares with the chain
  let verifiable: VerifiableBlock | undefined;
  let lastPoiHash: Uint8Array | null = null;
  let lastFlushAt = Date.now();
  let chain: Promise<void> = Promise.resolve();
  // flushes scheduled and not yet committed (or failed)
  let inFlight = 0;
  let failure: unknown;

  function schedule(): Promise<void> {
    if (height === undefined) return chain;
    const batch = { operations, poi, mark, height };
    const metadata: Record<string, unknown> = {
      lastProcessedHeight: height,
      lastProcessedTimestamp: Date.now(),
      targetHeight: status.targetHeight ?? height,
    };
    if (blockTimestamp !== undefined) metadata.lastProcessedBlockTimestamp = blockTimestamp;
    if (verifiable !== undefined) metadata.lastVerifiableBlock = verifiable;
    if (poi.length > 0) metadata.lastCreatedPoiHeight = poi[poi.length - 1]!.id;
    Object.assign(metadata, deps.metadataOf(height));
    operations = [];
    poi = [];
    height = undefined;
    verifiable = undefined;
    lastFlushAt = Date.now();
    inFlight++;
    chain = chain.then(async () => {
      const started = Date.now();
      if (deps.exporter !== undefined) metadata.csvExport = await deps.exporter.append(batch.operations);
      await deps.store.flush({ operations: batch.operations, metadata, poi: batch.poi });
      cache.flushed(batch.mark);
      status.lastProcessedHeight = batch.height;
      status.lastProcessedTimestamp = metadata.lastProcessedTimestamp as number;
      deps.logger.profile('StoreService', `flush ${batch.operations.length} operations`, Date.now() - started);
    });
    chain = chain.finally(() => inFlight--);
    chain.catch((err: unknown) => {
      failure ??= err;
    });
    return chain;
  }

  return {
    /** The proof-of-index chain continues from this hash (after a start or a rewind). */
    resumePoi(hash: Uint8Array | null) {
      lastPoiHash = hash;
    },

    /** Moves the finished block's writes into the next flush, with its `_poi` row. */
    complete(block: CompletedBlock) {
      const taken = cache.takeOperations(block.height);
      mark = taken.mark;
      if (taken.operations.length > 0) {
        operations.push(...taken.operations);
        if (settings.proofOfIndex && block.hash !== undefined) {
          const { projectId, sha256 } = settings.proofOfIndex;
          const row = poiRow({ height: block.height, chainBlockHash: block.hash, operations: taken.operations, projectId, parentHash: lastPoiHash }, sha256);
          lastPoiHash = row.hash;
          poi.push(row);
        }
      }
      height = block.height;
      if (block.hash !== undefined) verifiable = { height: block.height, hash: block.hash };
      if (block.timestamp !== undefined) {
        blockTimestamp = block.timestamp;
        status.blockTimes.add({ height: block.height, timestamp: block.timestamp });
      }
    },

    pending: () => height !== undefined,

    /** Flushes and waits until everything taken so far is committed. */
    async flush(): Promise<void> {
      await schedule();
    },

    /**
     * Flushes without waiting in async mode (ordering still holds), unless `step` says memory is at
     * its bound: then waits for the flush before this one. Waits for this one otherwise.
     */
    async flushInBackgroundOrWait(background: boolean, step: FlushStep = 'flush'): Promise<void> {
      if (!background) return schedule();
      const previous = chain;
      void schedule().catch(() => undefined);
      // a failure is kept in `failure` and raised by throwIfFailed
      if (step === 'flush-after-previous') await previous.catch(() => undefined);
    },

    /**
     * What to do now (flush-step.ts), after a range or, `withinRange`, between two of its blocks (a
     * crash loses at most --store-flush-interval of work, however long the range).
     */
    step(caughtUp: boolean, withinRange = false): FlushStep {
      if (height === undefined) return 'collect';
      return flushStep(
        { caughtUp, inFlight: inFlight > 0, pending: cache.pendingCount(), sinceLastFlushMs: Date.now() - lastFlushAt, withinRange },
        { async: settings.flushAsync, intervalMs: settings.flushIntervalMs, threshold: settings.flushThreshold, upperLimit: settings.flushUpperLimit },
      );
    },

    throwIfFailed() {
      if (failure !== undefined) throw failure;
    },
  };
}

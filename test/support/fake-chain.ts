import type { BlockRef } from '../../domain/blocks/chain-heads.ts';
import type { EntityData, EntityStore, FlushBatch, StoreOperation } from '../../domain/entities/entity-store.ts';
import { createStoreCache, type StoreCache } from '../../domain/entities/store-cache.ts';
import type { DataSource, Template } from '../../domain/project/project-model.ts';
import type { BlockRunner, CreatedDataSource } from '../../apps/node/indexing/block-processor.ts';
import { createEthereumFamily } from '../../apps/node/families/ethereum/ethereum-family.ts';
import type { BlockContent, HandlerCall } from '../../domain/chains/ethereum/handler-call.ts';
import { createIndexer, type IndexerSettings } from '../../apps/node/indexing/indexer.ts';
import { createIndexerStatus } from '../../apps/node/indexing/indexer-status.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { blocksWithoutLogs } from './fake-blocks.ts';

/**
 * A chain in memory for the indexer's stages: blocks with hashes per branch, a head that grows,
 * and reorganisations from any height. No RPC, no anvil.
 */
export function createFakeChain(length: number) {
  let blocks: BlockRef[] = [];
  let branch = 'a';
  const grow = (to: number) => {
    for (let h = blocks.length; h <= to; h++) {
      blocks.push({ height: h, hash: `0x${branch}${h}`, parentHash: h === 0 ? '0x' : blocks[h - 1]!.hash, timestamp: 1_000 + h * 12 });
    }
  };
  grow(length);
  // final up to the head unless a test says otherwise
  let finalized: number | undefined;
  return {
    best: () => blocks.length - 1,
    grow,
    /** replaces the blocks from `height` on with a new branch named `name`, up to `to` */
    reorg(height: number, name: string, to: number) {
      branch = name;
      blocks = blocks.slice(0, height);
      grow(to);
    },
    setFinalized(h: number) {
      finalized = h;
    },
    hashAt: (h: number) => blocks[h]?.hash,
    source: {
      bestHeight: async () => blocks.length - 1,
      finalizedHeight: async () => finalized ?? blocks.length - 1,
      getBlockRefs: async (heights: readonly number[]) => heights.flatMap((h) => (blocks[h] ? [blocks[h]!] : [])),
    },
    fetcher: blocksWithoutLogs((h) => (blocks[h] ? { ...blocks[h]!, transactionHashes: [] } : undefined)),
  };
}

/**
 * A versioned store in memory: flushes are kept as committed batches, and a rewind drops the
 * operations above its height, as the PostgreSQL store's does with block ranges.
 */
export function createMemoryStore() {
  let ops: StoreOperation[] = [];
  const metadata: Record<string, unknown> = {};
  const commits: number[] = [];
  const store = {
    async flush(batch: FlushBatch) {
      ops.push(...batch.operations);
      Object.assign(metadata, batch.metadata);
      commits.push(batch.metadata!.lastProcessedHeight as number);
    },
    async rewind(height: number, entries: Readonly<Record<string, unknown>> = {}) {
      ops = ops.filter((o) => o.height <= height);
      Object.assign(metadata, entries, { lastProcessedHeight: height });
    },
    async getMetadata(keys: string | readonly string[]) {
      if (typeof keys === 'string') return metadata[keys];
      return Object.fromEntries(keys.filter((k) => k in metadata).map((k) => [k, metadata[k]]));
    },
    async setMetadata(entries: Readonly<Record<string, unknown>>) {
      Object.assign(metadata, entries);
    },
    get: async () => undefined,
    getByField: async () => [],
    getByFields: async () => [],
    getLatestPoi: async () => undefined,
  } as unknown as EntityStore;
  return {
    store,
    metadata,
    commits,
    /** the live entities now: the last write of each id */
    live(entity: string): Map<string, EntityData> {
      const out = new Map<string, EntityData>();
      for (const o of ops) {
        if (o.entity !== entity) continue;
        if (o.op === 'set') out.set(o.id, o.data!);
        else out.delete(o.id);
      }
      return out;
    },
  };
}

export type MemoryStore = ReturnType<typeof createMemoryStore>;

export const blockHandlerSource = (handler: string, startBlock = 1): DataSource => ({
  kind: 'ethereum/Runtime',
  startBlock,
  assets: {},
  mapping: { file: 'x.js', handlers: [{ kind: 'ethereum/BlockHandler', handler }] },
});

export const blockHandlerTemplate = (name: string, handler: string): Template => ({
  name,
  kind: 'ethereum/Runtime',
  assets: {},
  mapping: { file: 'x.js', handlers: [{ kind: 'ethereum/BlockHandler', handler }] },
});

/** What a fake mapping does for one handler call: writes through the cache, may create data sources. */
/** The settings every fake indexer run starts from: flushes only at the end or by count, no confirmations, fast polls. */
export const FAKE_INDEXER_SETTINGS: IndexerSettings = {
  batchSize: 5,
  flushAsync: false,
  flushIntervalMs: 0,
  flushThreshold: 1000,
  flushUpperLimit: 20000,
  unfinalizedBlocks: false,
  blockConfirmations: 0,
  pollIntervalMs: 5,
};

/** The EVM family with nothing to decode: the fake chains' blocks hold no logs. */
export const fakeEvmFamily = () => createEthereumFamily({ abiOf: () => undefined, keccak256: () => '0x' });

/** What an indexer over one block handler `h` needs besides its chain, store and runner: the data source, the family, a status. */
export const oneBlockHandler = () => ({
  dataSources: [blockHandlerSource('h')],
  templates: [],
  family: fakeEvmFamily(),
  status: createIndexerStatus(),
});

export type FakeHandler = (ctx: { height: number; hash: string; cache: StoreCache }) => readonly CreatedDataSource[] | void;

/** An indexer over a fake chain and a memory store, with handlers given as functions. */
export function fakeIndexer(
  chain: ReturnType<typeof createFakeChain>,
  memory: MemoryStore,
  options: {
    dataSources: readonly DataSource[];
    templates?: readonly Template[];
    handlers: Record<string, FakeHandler>;
    settings?: Partial<IndexerSettings>;
    bypassed?: (height: number) => boolean;
  },
) {
  const cache = createStoreCache(memory.store, { queryLimit: 100, getCacheSize: 0 });
  const runner: BlockRunner<BlockContent, HandlerCall> = {
    async runBlock(height, content, calls) {
      const created: CreatedDataSource[] = [];
      for (const call of calls) created.push(...(options.handlers[call.handler]!({ height, hash: content.block.hash, cache }) ?? []));
      return { created };
    },
  };
  const status = createIndexerStatus();
  const indexer = createIndexer({
    source: chain.source as never,
    fetcher: chain.fetcher,
    store: memory.store,
    cache,
    runner,
    dataSources: options.dataSources,
    templates: options.templates ?? [],
    ...(options.bypassed !== undefined && { bypassed: options.bypassed }),
    family: fakeEvmFamily(),
    logger: createLogger({ level: 'silent', format: 'json' }),
    status,
    settings: { ...FAKE_INDEXER_SETTINGS, batchSize: 4, ...options.settings },
  });
  return { indexer, status };
}

/** Resolves once `check` holds, polling every few ms. */
export async function until(check: () => boolean, timeoutMs = 5000): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 2));
  }
}

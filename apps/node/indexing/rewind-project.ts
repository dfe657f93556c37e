import { fromStoredVerifiable } from '../../../domain/blocks/indexed-history.ts';
import { fromStoredUnfinalized, rewindBlocks, toStoredUnfinalized } from '../../../domain/blocks/unfinalized-blocks.ts';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import type { DynamicDataSourceRecord } from '../../../domain/project/dynamic-data-sources.ts';

/** `_metadata` keys a rewind reads and moves back with the entities. */
const KEYS = [
  'dynamicDatasources',
  'unfinalizedBlocks',
  'lastCreatedPoiHeight',
  'lastFinalizedVerifiedHeight',
  'lastProcessedBlockTimestamp',
  'lastVerifiableBlock',
] as const;

/**
 * Back to the state right after block `height`, in one transaction: entity versions and `_poi` rows
 * (the store's rewind), data sources created later, unfinalized-block hashes above it, and the
 * metadata that pointed above it. Shared by `reindex` and the fork rollback, so both leave exactly
 * what an uninterrupted run to `height` would have.
 */
export async function rewindProject(store: EntityStore, height: number): Promise<void> {
  const meta = await store.getMetadata(KEYS);
  const entries: Record<string, unknown> = {};
  if (Array.isArray(meta.dynamicDatasources)) {
    entries.dynamicDatasources = (meta.dynamicDatasources as DynamicDataSourceRecord[]).filter((d) => d.startBlock <= height);
  }
  const unfinalized = rewindBlocks(fromStoredUnfinalized(meta.unfinalizedBlocks), height);
  if (meta.unfinalizedBlocks !== undefined) entries.unfinalizedBlocks = toStoredUnfinalized(unfinalized);
  if (typeof meta.lastFinalizedVerifiedHeight === 'number' && meta.lastFinalizedVerifiedHeight > height) entries.lastFinalizedVerifiedHeight = height;
  if (typeof meta.lastCreatedPoiHeight === 'number' && meta.lastCreatedPoiHeight > height) {
    entries.lastCreatedPoiHeight = (await store.getLatestPoi(height))?.id ?? null;
  }
  if (meta.lastProcessedBlockTimestamp !== undefined) {
    // Known when the block is among the hashes kept; otherwise the key would describe a block that is gone.
    entries.lastProcessedBlockTimestamp = unfinalized.find((b) => b.height === height)?.timestamp ?? null;
  }
  const verifiable = fromStoredVerifiable(meta.lastVerifiableBlock);
  if (verifiable !== undefined && verifiable.height > height) {
    // The newest kept block at or below the target still describes what stays; none known, no check on restart.
    const kept = unfinalized[unfinalized.length - 1];
    entries.lastVerifiableBlock = kept === undefined ? null : { height: kept.height, hash: kept.hash };
  }
  await store.rewind(height, entries);
}

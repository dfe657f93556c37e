import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { createAccessRecorder, readAccessRecord, type AccessRecorder } from '../../../domain/project/handler-access.ts';

/**
 * The record of which entity types each handler reads and writes (domain/project/handler-access.ts),
 * grown from the one stored and committed with the flush after it grew: a crash loses no more of
 * it than of the rows. A schema indexed before idx kept it starts an incomplete record.
 */
export async function recordHandlerAccess(store: EntityStore): Promise<{ store: EntityStore; recorder: AccessRecorder }> {
  const stored = await store.getMetadata(['idxHandlerAccess', 'lastProcessedHeight']);
  const start = readAccessRecord(stored.idxHandlerAccess) ?? { complete: typeof stored.lastProcessedHeight !== 'number', handlers: {} };
  const recorder = createAccessRecorder(start);
  // the first flush writes it, so a fresh schema says from its first block that its record is complete
  let written = -1;
  return {
    recorder,
    store: {
      ...store,
      flush: async (batch) => {
        const version = recorder.version();
        if (version === written) return store.flush(batch);
        await store.flush({ ...batch, metadata: { ...batch.metadata, idxHandlerAccess: recorder.record() } });
        written = version;
      },
    },
  };
}

import { measure } from './limits.ts';
import type { WireRecord } from './wire.ts';

/**
 * What the sandbox last knew of an entity: `null` when known absent, `undefined` when unknown.
 * Filled by the mapping's own reads and writes, so a `get` after a `get` or `set` of the same
 * entity needs no crossing to the host — most of the ERC20 handler's cost otherwise. The host's
 * store changes only through this sandbox while blocks run in order; the sandbox clears it when
 * that may not hold (a block failed, or a height came again: a rewind or a retry).
 * At most `max` entries (two when it is 1) and about `maxBytes` of data (as the sandbox's limits measure it);
 * `max` 0 turns it off.
 */
export interface ReadCache {
  get(entity: string, id: string): WireRecord | null | undefined;
  /** `size`: the data's measure, when the caller has it already */
  put(entity: string, id: string, data: WireRecord | null, size?: number): void;
  forget(entity: string, id: string): void;
  clear(): void;
}

/** the data the read cache may hold, as measured (isolate/limits.ts): V8's own objects take a few times that */
export const READ_CACHE_BYTES = 16 * 2 ** 20;

/**
 * Two generations of up to `max / 2` entries: entries go into the newer one (an entry read from the
 * older one moves there), and when it is full the older one is dropped whole. What was neither read
 * nor written for a whole generation goes first, as in an LRU, without an LRU's reordering at every
 * read (a Map's delete and re-insert: most of a store call's cost). Keyed by entity, then id, so no
 * key string is built per call. Only the entity types the mappings have read are kept: the writes of a type never
 * read (a Transfer log) would otherwise push out those that are (10,000 accounts among 400,000 transfers); a type's
 * first read asks the host, and from then on its writes are kept too. Sized by entries and by bytes: enough
 * entries that a project's working set fits (W10's 10,000 accounts), few enough bytes that large entities cannot
 * fill the mappings' memory limit.
 */
export function createReadCache(max: number, maxBytes = READ_CACHE_BYTES): ReadCache {
  const half = Math.max(1, Math.floor(max / 2));
  const halfBytes = maxBytes / 2;
  let young = new Map<string, Map<string, WireRecord | null>>();
  let old = new Map<string, Map<string, WireRecord | null>>();
  let youngSize = 0;
  let youngBytes = 0;
  const read = new Set<string>();
  const add = (entity: string, id: string, data: WireRecord | null, bytes: number) => {
    let ids = young.get(entity);
    if (ids === undefined) young.set(entity, (ids = new Map()));
    const size = ids.size;
    ids.set(id, data);
    // a rewrite counts its bytes again: a generation ends a little early, never late
    youngBytes += bytes;
    if (ids.size !== size) youngSize++;
    if (youngSize > half || youngBytes > halfBytes) {
      old = young;
      young = new Map();
      youngSize = 0;
      youngBytes = 0;
    }
  };
  const sizeOf = (id: string, data: WireRecord | null) => id.length + (data === null ? 1 : measure(data));
  return {
    get(entity, id) {
      read.add(entity);
      const hit = young.get(entity)?.get(id);
      if (hit !== undefined) return hit;
      const ids = old.get(entity);
      const aged = ids?.get(id);
      if (aged !== undefined) {
        ids!.delete(id);
        add(entity, id, aged, sizeOf(id, aged));
      }
      return aged;
    },
    // the newer generation is read first: a copy left in the older one is never seen, and goes with it
    put(entity, id, data, size) {
      // a type never read has no entry to update
      if (max > 0 && read.has(entity)) add(entity, id, data, size === undefined ? sizeOf(id, data) : id.length + size);
    },
    forget(entity, id) {
      young.get(entity)?.delete(id);
      old.get(entity)?.delete(id);
    },
    clear() {
      young = new Map();
      old = new Map();
      youngSize = 0;
      youngBytes = 0;
    },
  };
}

import type { WireRecord } from './wire.ts';

/**
 * What the sandbox last knew of an entity: `null` when known absent, `undefined` when unknown.
 * Filled by the mapping's own reads and writes, so a `get` after a `get` or `set` of the same
 * entity needs no crossing to the host — most of the ERC20 handler's cost otherwise. The host's
 * store changes only through this sandbox while blocks run in order; the sandbox clears it when
 * that may not hold (a block failed, or a height came again: a rewind or a retry).
 * At most `max` entries (two when it is 1); `max` 0 turns it off.
 */
export interface ReadCache {
  get(entity: string, id: string): WireRecord | null | undefined;
  put(entity: string, id: string, data: WireRecord | null): void;
  forget(entity: string, id: string): void;
  clear(): void;
}

/**
 * Two generations of up to `max / 2` entries: entries go into the newer one (an entry read from the
 * older one moves there), and when it is full the older one is dropped whole. What was neither read
 * nor written for a whole generation goes first, as in an LRU, without an LRU's reordering at every
 * read (a Map's delete and re-insert: most of a store call's cost). Keyed by entity, then id, so no
 * key string is built per call. Only the entity types the mappings have read are kept: the writes of a type never
 * read (a Transfer log) would otherwise push out those that are (10,000 accounts among 400,000 transfers); a type's
 * first read asks the host, and from then on its writes are kept too.
 */
export function createReadCache(max: number): ReadCache {
  const half = Math.max(1, Math.floor(max / 2));
  let young = new Map<string, Map<string, WireRecord | null>>();
  let old = new Map<string, Map<string, WireRecord | null>>();
  let youngSize = 0;
  const read = new Set<string>();
  const add = (entity: string, id: string, data: WireRecord | null) => {
    let ids = young.get(entity);
    if (ids === undefined) young.set(entity, (ids = new Map()));
    const size = ids.size;
    ids.set(id, data);
    if (ids.size === size) return;
    if (++youngSize > half) {
      old = young;
      young = new Map();
      youngSize = 0;
    }
  };
  return {
    get(entity, id) {
      read.add(entity);
      const hit = young.get(entity)?.get(id);
      if (hit !== undefined) return hit;
      const ids = old.get(entity);
      const aged = ids?.get(id);
      if (aged !== undefined) {
        ids!.delete(id);
        add(entity, id, aged);
      }
      return aged;
    },
    // the newer generation is read first: a copy left in the older one is never seen, and goes with it
    put(entity, id, data) {
      // a type never read has no entry to update
      if (max > 0 && read.has(entity)) add(entity, id, data);
    },
    forget(entity, id) {
      young.get(entity)?.delete(id);
      old.get(entity)?.delete(id);
    },
    clear() {
      young = new Map();
      old = new Map();
      youngSize = 0;
    },
  };
}

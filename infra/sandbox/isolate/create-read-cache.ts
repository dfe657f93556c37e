import type { WireRecord } from './wire.ts';

/**
 * What the sandbox last knew of an entity: `null` when known absent, `undefined` when unknown.
 * Filled by the mapping's own reads and writes, so a `get` after a `get` or `set` of the same
 * entity needs no crossing to the host — most of the ERC20 handler's cost otherwise. The host's
 * store changes only through this sandbox while blocks run in order; the sandbox clears it when
 * that may not hold (a block failed, or a height came again: a rewind or a retry).
 * Least recently used entries go first once `max` is reached; `max` 0 turns it off.
 */
export interface ReadCache {
  get(entity: string, id: string): WireRecord | null | undefined;
  put(entity: string, id: string, data: WireRecord | null): void;
  forget(entity: string, id: string): void;
  clear(): void;
}

export function createReadCache(max: number): ReadCache {
  const entries = new Map<string, WireRecord | null>();
  const key = (entity: string, id: string) => `${entity}\u0000${id}`;
  return {
    get(entity, id) {
      const k = key(entity, id);
      const v = entries.get(k);
      if (v !== undefined) {
        entries.delete(k);
        entries.set(k, v);
      }
      return v;
    },
    put(entity, id, data) {
      if (max <= 0) return;
      const k = key(entity, id);
      entries.delete(k);
      entries.set(k, data);
      if (entries.size > max) entries.delete(entries.keys().next().value!);
    },
    forget(entity, id) {
      entries.delete(key(entity, id));
    },
    clear() {
      entries.clear();
    },
  };
}

import { clonePlain } from './clone-plain.ts';
import type { ReadCache } from './create-read-cache.ts';
import type { HostOp, WireRecord, WriteOp } from './wire.ts';

type Call = (op: HostOp, args: unknown[]) => Promise<unknown>;
type Untag<T> = T extends [number, ...infer Rest] ? Rest : never;
/** a write without its call tag: `['set', entity, id, data]` … */
export type Write = Untag<WriteOp>;

interface QueryOptions {
  limit?: number;
  offset?: number;
  orderBy?: string;
  orderDirection?: 'ASC' | 'DESC';
}

/**
 * The `store` global. Reads cross to the host and wait; writes are buffered here (a snapshot of
 * the data) and travel with the next crossing or at the end of the block, in order, so a handler
 * doing one `save()` costs no round trip. Reads always see earlier writes because the buffered
 * writes are applied before the read. `get` answers from the read cache when it can; what it
 * returns is always the mapping's own copy.
 */
export function createStore(call: Call, queue: (write: Write) => void, queryLimit: number, cache: ReadCache) {
  const name = (method: string, entity: unknown): string => {
    if (typeof entity !== 'string' || entity === '') throw new TypeError(`store.${method}: the entity name must be a non-empty string, got ${String(entity)}`);
    return entity;
  };
  const ident = (method: string, id: unknown): string => {
    if (typeof id !== 'string') throw new TypeError(`store.${method}: an entity id must be a string, got ${typeof id}`);
    return id;
  };
  const options = (method: string, entity: string, opts: QueryOptions | undefined): QueryOptions & { limit: number } => {
    const limit = opts?.limit ?? queryLimit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0) throw new TypeError(`store.${method}("${entity}", …): limit must be a non-negative integer, got ${String(limit)}`);
    if (limit > queryLimit) {
      throw new RangeError(
        `store.${method}("${entity}", …) asked for limit ${limit}, above the query limit of ${queryLimit}: ask for at most ${queryLimit} (page with offset), or start the node with a larger --query-limit`,
      );
    }
    return { ...opts, limit };
  };
  const remember = (entity: string, records: readonly WireRecord[]) => {
    for (const r of records) cache.put(entity, r.id as string, r);
  };
  const records = (method: string, list: unknown): WireRecord[] => {
    if (!Array.isArray(list)) throw new TypeError(`store.${method}: expected an array of entities`);
    return list.map((r) => {
      ident(method, (r as { id?: unknown })?.id);
      return clonePlain(r) as WireRecord;
    });
  };
  return {
    get: async (entity: string, id: string) => {
      const hit = cache.get(name('get', entity), ident('get', id));
      if (hit !== undefined) return hit === null ? undefined : clonePlain(hit);
      const data = (await call('get', [entity, id])) as WireRecord | undefined;
      cache.put(entity, id, data === undefined || data === null ? null : (clonePlain(data) as WireRecord));
      return data;
    },
    getByField: async (entity: string, field: string, value: unknown, opts?: QueryOptions) =>
      call('getByField', [name('getByField', entity), field, clonePlain(value), options('getByField', entity, opts)]),
    getByFields: async (entity: string, filters: unknown[], opts?: QueryOptions) =>
      call('getByFields', [name('getByFields', entity), clonePlain(filters), options('getByFields', entity, opts)]),
    getOneByField: async (entity: string, field: string, value: unknown) => call('getOneByField', [name('getOneByField', entity), field, clonePlain(value)]),
    set: async (entity: string, id: string, data: unknown): Promise<void> => {
      const snapshot = clonePlain(data) as WireRecord;
      queue(['set', name('set', entity), ident('set', id), snapshot]);
      cache.put(entity, id, snapshot);
    },
    bulkCreate: async (entity: string, list: unknown[]): Promise<void> => {
      const snapshots = records('bulkCreate', list);
      queue(['bulkCreate', name('bulkCreate', entity), snapshots]);
      remember(entity, snapshots);
    },
    bulkUpdate: async (entity: string, list: unknown[], fields?: string[]): Promise<void> => {
      const snapshots = records('bulkUpdate', list);
      queue(['bulkUpdate', name('bulkUpdate', entity), snapshots, fields === undefined ? undefined : [...fields]]);
      // with `fields` only those change on the host: the cached whole entity would be wrong
      if (fields === undefined) remember(entity, snapshots);
      else for (const r of snapshots) cache.forget(entity, r.id as string);
    },
    remove: async (entity: string, id: string): Promise<void> => {
      queue(['remove', name('remove', entity), ident('remove', id)]);
      cache.put(entity, id, null);
    },
    bulkRemove: async (entity: string, ids: string[]): Promise<void> => {
      if (!Array.isArray(ids)) throw new TypeError('store.bulkRemove: expected an array of ids');
      const list = ids.map((id) => ident('bulkRemove', id));
      queue(['bulkRemove', name('bulkRemove', entity), list]);
      for (const id of list) cache.put(entity, id, null);
    },
  };
}

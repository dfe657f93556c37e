import { READ, WRITE, type AccessLog } from './access-log.ts';
import { clonePlain } from './clone-plain.ts';
import type { KnownIds } from '../../../domain/entities/known-ids.ts';
import type { ReadCache } from './create-read-cache.ts';
import { measure, type createWriteBudget } from './limits.ts';
import type { HostOp, WireRecord, WriteOp } from './wire.ts';

// with the u flag a pair is one code point, so only a lone half matches
const LONE_SURROGATE = /\p{Cs}/u;

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
export function createStore(
  call: Call,
  queue: (write: Write) => void,
  queryLimit: number,
  reads: {
    cache: ReadCache;
    /** the ids of the fresh entity types: any other is absent */
    known: KnownIds;
  },
  budget: ReturnType<typeof createWriteBudget>,
  access: Pick<AccessLog, 'note'>,
) {
  const { cache, known } = reads;
  const name = (method: string, entity: unknown): string => {
    if (typeof entity !== 'string' || entity === '') throw new TypeError(`store.${method}: the entity name must be a non-empty string, got ${String(entity)}`);
    return entity;
  };
  /** the entity name, checked, and noted as read by the running handler */
  const read = (method: string, entity: unknown): string => {
    const checked = name(method, entity);
    access.note(checked, READ);
    return checked;
  };
  /** the entity name, checked, and noted as written by the running handler */
  const written = (method: string, entity: unknown): string => {
    const checked = name(method, entity);
    access.note(checked, WRITE);
    return checked;
  };
  const ident = (method: string, id: unknown): string => {
    if (typeof id !== 'string') throw new TypeError(`store.${method}: an entity id must be a string, got ${typeof id}`);
    // the database would store U+FFFD instead, so two distinct ids would become one
    if (LONE_SURROGATE.test(id))
      throw new TypeError(
        `store.${method}: the entity id ${JSON.stringify(id)} holds a lone surrogate (half of a UTF-16 pair), which cannot be stored as text`,
      );
    return id;
  };
  const options = (method: string, entity: string, opts: QueryOptions | undefined): QueryOptions & { limit: number } => {
    const limit = opts?.limit ?? queryLimit;
    if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 0)
      throw new TypeError(`store.${method}("${entity}", …): limit must be a non-negative integer, got ${String(limit)}`);
    if (limit > queryLimit) {
      throw new RangeError(
        `store.${method}("${entity}", …) asked for limit ${limit}, above the query limit of ${queryLimit}: ask for at most ${queryLimit} (page with offset), or start the node with a larger --query-limit`,
      );
    }
    const offset = opts?.offset;
    if (offset !== undefined && (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0)) {
      throw new TypeError(`store.${method}("${entity}", …): offset must be a non-negative whole number, got ${String(offset)}`);
    }
    return { ...opts, limit };
  };
  const remember = (entity: string, records: readonly WireRecord[]) => {
    for (const r of records) cache.put(entity, r.id as string, r);
  };
  const records = (method: string, entity: string, list: unknown): WireRecord[] => {
    if (!Array.isArray(list)) throw new TypeError(`store.${method}: expected an array of entities`);
    return list.map((r) => {
      known.add(entity, ident(method, (r as { id?: unknown })?.id));
      return clonePlain(r) as WireRecord;
    });
  };
  return {
    get: async (entity: string, id: string) => {
      const hit = cache.get(read('get', entity), ident('get', id));
      if (hit !== undefined) return hit === null ? undefined : clonePlain(hit);
      if (known.absent(entity, id)) return undefined;
      const data = (await call('get', [entity, id])) as WireRecord | undefined;
      cache.put(entity, id, data === undefined || data === null ? null : (clonePlain(data) as WireRecord));
      return data;
    },
    getByField: async (entity: string, field: string, value: unknown, opts?: QueryOptions) =>
      call('getByField', [read('getByField', entity), field, clonePlain(value), options('getByField', entity, opts)]),
    getByFields: async (entity: string, filters: unknown[], opts?: QueryOptions) =>
      call('getByFields', [read('getByFields', entity), clonePlain(filters), options('getByFields', entity, opts)]),
    getOneByField: async (entity: string, field: string, value: unknown) => call('getOneByField', [read('getOneByField', entity), field, clonePlain(value)]),
    set: async (entity: string, id: string, data: unknown): Promise<void> => {
      const snapshot = clonePlain(data) as WireRecord;
      written('set', entity);
      ident('set', id);
      known.add(entity, id);
      const size = measure(snapshot);
      budget.charge(() => `store.set("${entity}", ${JSON.stringify(id)})`, [size]);
      queue(['set', entity, id, snapshot]);
      cache.put(entity, id, snapshot, size);
    },
    bulkCreate: async (entity: string, list: unknown[]): Promise<void> => {
      written('bulkCreate', entity);
      const what = () => `store.bulkCreate("${entity}", [${Array.isArray(list) ? list.length : '?'} records])`;
      if (Array.isArray(list)) budget.count(what, list.length);
      const snapshots = records('bulkCreate', entity, list);
      budget.charge(
        what,
        snapshots.map((r) => measure(r)),
      );
      queue(['bulkCreate', entity, snapshots]);
      remember(entity, snapshots);
    },
    bulkUpdate: async (entity: string, list: unknown[], fields?: string[]): Promise<void> => {
      written('bulkUpdate', entity);
      const what = () => `store.bulkUpdate("${entity}", [${Array.isArray(list) ? list.length : '?'} records])`;
      if (Array.isArray(list)) budget.count(what, list.length);
      const snapshots = records('bulkUpdate', entity, list);
      budget.charge(
        what,
        snapshots.map((r) => measure(r)),
      );
      queue(['bulkUpdate', entity, snapshots, fields === undefined ? undefined : [...fields]]);
      // with `fields` only those change on the host: the cached whole entity would be wrong
      if (fields === undefined) remember(entity, snapshots);
      else for (const r of snapshots) cache.forget(entity, r.id as string);
    },
    remove: async (entity: string, id: string): Promise<void> => {
      written('remove', entity);
      ident('remove', id);
      budget.charge(() => `store.remove("${entity}", ${JSON.stringify(id)})`, [id.length]);
      queue(['remove', entity, id]);
      cache.put(entity, id, null);
    },
    bulkRemove: async (entity: string, ids: string[]): Promise<void> => {
      if (!Array.isArray(ids)) throw new TypeError('store.bulkRemove: expected an array of ids');
      const list = ids.map((id) => ident('bulkRemove', id));
      written('bulkRemove', entity);
      budget.charge(
        () => `store.bulkRemove("${entity}", [${list.length} ids])`,
        list.map((id) => id.length),
      );
      queue(['bulkRemove', name('bulkRemove', entity), list]);
      for (const id of list) cache.put(entity, id, null);
    },
  };
}

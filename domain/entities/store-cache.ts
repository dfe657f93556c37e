import { IdxError } from '../errors.ts';
import type { SchemaModel } from './entity-model.ts';
import type { EntityData, EntityStore, FieldFilter, QueryOptions, StoreOperation } from './entity-store.ts';
import { createKnownIds, KNOWN_IDS_BUDGET } from './known-ids.ts';
import { createEntityValidator } from './validate-entity.ts';

/**
 * The store as mappings see it: writes collect in memory and reach the database in bulk flushes,
 * while reads see the database overlaid with every write not yet flushed (read-your-writes,
 * including the current block's own earlier writes).
 */
export interface StoreCache {
  get(entity: string, id: string): Promise<EntityData | undefined>;
  getByField(entity: string, field: string, value: unknown, options?: QueryOptions): Promise<EntityData[]>;
  getByFields(entity: string, filters: readonly FieldFilter[], options?: QueryOptions): Promise<EntityData[]>;
  getOneByField(entity: string, field: string, value: unknown): Promise<EntityData | undefined>;
  set(entity: string, id: string, data: EntityData, height: number): void;
  bulkCreate(entity: string, records: readonly EntityData[], height: number): void;
  bulkUpdate(entity: string, records: readonly EntityData[], height: number, fields?: readonly string[]): Promise<void>;
  remove(entity: string, id: string, height: number): void;
  bulkRemove(entity: string, ids: readonly string[], height: number): void;
  /**
   * Writes made since the last call, in order, for a flush; they stay visible until `flushed(mark)`.
   * The mark lets a flush that runs while later blocks keep writing confirm only what it committed.
   * `upToHeight`: only those of blocks up to it (a run of blocks writes ahead of the blocks completed).
   */
  takeOperations(upToHeight?: number): { operations: StoreOperation[]; mark: number };
  /** everything taken up to `mark` is committed: drop it from memory (later writes stay) */
  flushed(mark: number): void;
  /** writes waiting, taken or not (for `--store-cache-threshold`) */
  pendingCount(): number;
  /** forget every unflushed write (after a failed block, or before a rewind) */
  discard(): void;
  /** the mappings read `entity` where this cache did not see it (the sandbox answered): keep its known ids (known-ids.ts) */
  markRead(entity: string): void;
}

/**
 * The cache as the node's own code holds it: flush what was written, forget it on a failure, read (a test's checks).
 * Only the mappings write (apps/node/families/mapping-store.ts), and the sandbox keeps ids they wrote.
 */
export type StoreCacheBooks = Pick<StoreCache, 'get' | 'takeOperations' | 'flushed' | 'pendingCount' | 'discard'>;

export interface StoreCacheOptions {
  /** `--query-limit`: the default and the largest `limit` of one read */
  queryLimit: number;
  /** `--store-get-cache-size`: recent database reads kept for `get`; 0 keeps none */
  getCacheSize: number;
  /** the project's entities: each write is checked against them when made, not when flushed */
  model?: SchemaModel;
  /**
   * Entity types whose table held no row when the cache was made, and which nothing but this cache writes while it
   * lives: every id they will ever hold passes through `set`, so the cache keeps those ids and answers a `get` of any
   * other as absent without a database read (the first `get` of each new account, on a fresh index). Only the
   * writer of a schema may say so: not with other writers (`--multi-chain`, a `--reuse` copy under way).
   */
  freshEntities?: readonly string[];
  /** how many ids the fresh entity types may keep together; past it the largest set is dropped (its reads go to the database) */
  knownIdsBudget?: number;
}

interface Pending {
  /** null: removed */
  data: EntityData | null;
  /** order of the write, to drop it only once a flush has committed it */
  seq: number;
}

export function createStoreCache(store: EntityStore, options: StoreCacheOptions): StoreCache {
  const pending = new Map<string, Map<string, Pending>>();
  let ops: StoreOperation[] = [];
  let seq = 0;
  // Recent database reads by `entity\u0000id`, oldest first (a Map keeps insertion order).
  const recent = new Map<string, EntityData | null>();
  const known = createKnownIds(options.freshEntities ?? [], options.knownIdsBudget ?? KNOWN_IDS_BUDGET);

  const entityPending = (entity: string) => {
    let m = pending.get(entity);
    if (m === undefined) pending.set(entity, (m = new Map()));
    return m;
  };

  const validate = options.model === undefined ? undefined : createEntityValidator(options.model);

  const write = (entity: string, id: string, height: number, data: EntityData | null) => {
    if (typeof id !== 'string' || id === '')
      throw new IdxError('STORE_INVALID_ID', `${entity}: an entity id must be a non-empty string, got ${JSON.stringify(id)}`);
    if (data !== null) validate?.(entity, id, data);
    seq++;
    known.add(entity, id);
    // One copy serves the overlay and the flush; readers get copies of it.
    const record = data === null ? null : { ...data, id };
    entityPending(entity).set(id, { data: record, seq });
    recent.delete(`${entity}\u0000${id}`);
    ops.push(record === null ? { entity, id, height, op: 'remove' } : { entity, id, height, op: 'set', data: record });
  };

  const limitOf = (opts: QueryOptions | undefined): number => {
    const offset = opts?.offset;
    if (offset !== undefined && (!Number.isSafeInteger(offset) || offset < 0))
      throw new IdxError('STORE_INVALID_QUERY', `offset must be a non-negative whole number, got ${String(offset)}`);
    const limit = opts?.limit ?? options.queryLimit;
    if (!Number.isInteger(limit) || limit < 0) throw new IdxError('STORE_INVALID_QUERY', `limit must be a whole number, got ${String(limit)}`);
    if (limit > options.queryLimit) {
      throw new IdxError(
        'QUERY_LIMIT_EXCEEDED',
        `limit ${limit} is above the query limit of ${options.queryLimit}; raise it with --query-limit or read in pages with offset`,
      );
    }
    return limit;
  };

  /** A database read overlaid with pending writes; `matches` decides which pending entities belong. */
  const overlaidQuery = async (
    entity: string,
    opts: QueryOptions | undefined,
    matches: (data: EntityData) => boolean,
    query: (o: QueryOptions) => Promise<EntityData[]>,
  ): Promise<EntityData[]> => {
    const limit = limitOf(opts);
    const offset = opts?.offset ?? 0;
    const mine = pending.get(entity);
    if (mine === undefined || mine.size === 0) return query({ ...opts, limit, offset });
    // Ask for enough rows that dropping those overridden in memory still fills the page.
    const rows = await query({ ...opts, limit: offset + limit + mine.size, offset: 0 });
    const merged = rows.filter((r) => !mine.has(String(r.id)));
    for (const p of mine.values()) if (p.data !== null && matches(p.data)) merged.push(p.data);
    const key = opts?.orderBy ?? 'id';
    const dir = opts?.orderDirection === 'DESC' ? -1 : 1;
    merged.sort((a, b) => dir * compareValues(a[key], b[key]) || compareValues(a.id, b.id));
    return merged.slice(offset, offset + limit);
  };

  const cache: StoreCache = {
    async get(entity, id) {
      const p = pending.get(entity)?.get(id);
      if (p !== undefined) return p.data === null ? undefined : { ...p.data };
      const key = `${entity}\u0000${id}`;
      if (recent.has(key)) {
        const hit = recent.get(key)!;
        return hit === null ? undefined : { ...hit };
      }
      if (known.absent(entity, id)) return undefined;
      const row = await store.get(entity, id);
      if (options.getCacheSize > 0) {
        recent.set(key, row ?? null);
        if (recent.size > options.getCacheSize) recent.delete(recent.keys().next().value!);
      }
      return row;
    },
    getByField(entity, field, value, opts) {
      return overlaidQuery(
        entity,
        opts,
        (d) => fieldMatches(d[field], Array.isArray(value) ? 'in' : '=', value),
        (o) => store.getByField(entity, field, value, o),
      );
    },
    getByFields(entity, filters, opts) {
      return overlaidQuery(
        entity,
        opts,
        (d) => filters.every(([f, op, v]) => fieldMatches(d[f], op, v)),
        (o) => store.getByFields(entity, filters, o),
      );
    },
    async getOneByField(entity, field, value) {
      return (await cache.getByField(entity, field, value, { limit: 1 }))[0];
    },
    set(entity, id, data, height) {
      write(entity, id, height, data);
    },
    bulkCreate(entity, records, height) {
      for (const r of records) write(entity, String(r.id), height, r);
    },
    async bulkUpdate(entity, records, height, fields) {
      for (const r of records) {
        const id = String(r.id);
        if (fields === undefined) {
          write(entity, id, height, r);
          continue;
        }
        const current = await cache.get(entity, id);
        if (current === undefined) throw new IdxError('STORE_NOT_FOUND', `bulkUpdate of ${entity} "${id}": no such entity to update`);
        const next = { ...current };
        for (const f of fields) next[f] = r[f];
        write(entity, id, height, next);
      }
    },
    remove(entity, id, height) {
      write(entity, id, height, null);
    },
    bulkRemove(entity, ids, height) {
      for (const id of ids) write(entity, id, height, null);
    },
    takeOperations(upToHeight) {
      const [out, later] = splitAtHeight(ops, upToHeight);
      ops = later;
      // each write is one op and one seq: the mark is the last taken
      return { operations: out, mark: seq - later.length };
    },
    flushed(mark) {
      for (const m of pending.values()) for (const [id, p] of m) if (p.seq <= mark) m.delete(id);
    },
    pendingCount() {
      let n = 0;
      for (const m of pending.values()) n += m.size;
      return n;
    },
    discard() {
      pending.clear();
      recent.clear();
      ops = [];
    },
    markRead: (entity) => known.read(entity),
  };
  return cache;
}

/** The operations of blocks up to `height` (all when undefined), and the later ones: blocks write in order of height. */
function splitAtHeight(ops: StoreOperation[], height: number | undefined): [StoreOperation[], StoreOperation[]] {
  let n = ops.length;
  if (height !== undefined) while (n > 0 && ops[n - 1]!.height > height) n--;
  return n === ops.length ? [ops, []] : [ops.slice(0, n), ops.slice(n)];
}

/** Values compared as the database compares them: numbers and bigints by value, the rest as text. */
function normalise(v: unknown): unknown {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isInteger(v)) return BigInt(v);
  if (v instanceof Date) return BigInt(v.getTime());
  return v;
}

function compareValues(a: unknown, b: unknown): number {
  if (a === b) return 0;
  // NULLs sort last ascending, as in PostgreSQL.
  if (a === null || a === undefined) return 1;
  if (b === null || b === undefined) return -1;
  const x = normalise(a);
  const y = normalise(b);
  if ((typeof x === 'bigint' || typeof x === 'number') && (typeof y === 'bigint' || typeof y === 'number')) return x < y ? -1 : x > y ? 1 : 0;
  const s = String(x);
  const t = String(y);
  return s < t ? -1 : s > t ? 1 : 0;
}

function sameValue(a: unknown, b: unknown): boolean {
  if (a === null || a === undefined || b === null || b === undefined) return false;
  return compareValues(a, b) === 0;
}

function fieldMatches(actual: unknown, op: FieldFilter[1], expected: unknown): boolean {
  switch (op) {
    case '=':
      return sameValue(actual, expected);
    case '!=':
      return actual !== null && actual !== undefined && !sameValue(actual, expected);
    case 'in':
      return Array.isArray(expected) && expected.some((e) => sameValue(actual, e));
    case '!in':
      return Array.isArray(expected) && actual !== null && actual !== undefined && !expected.some((e) => sameValue(actual, e));
  }
}

/**
 * The store port: what the node (and the sandbox bridge) need from entity storage.
 * `infra/postgres` implements it over PostgreSQL and PGlite.
 */

/**
 * An entity's values keyed by property: a field's GraphQL name (`blockHeight`), or `<name>Id` for a
 * relation field (`owner` → `ownerId`), as SubQuery's codegen classes hold them. `id` is included.
 */
export type EntityData = Record<string, unknown>;

/** One store write in a mapping, in the order the mappings made them. */
export interface StoreOperation {
  /** entity type name, e.g. `Transfer` */
  entity: string;
  id: string;
  /** the block whose handlers made the write */
  height: number;
  op: 'set' | 'remove';
  /** the whole entity for `set` */
  data?: EntityData;
}

/** One `_poi` row: the proof-of-indexing hash chain entry of one block. */
export interface PoiRow {
  /** the block height */
  id: number;
  chainBlockHash: Uint8Array | null;
  hash: Uint8Array | null;
  parentHash: Uint8Array | null;
  operationHashRoot: Uint8Array | null;
}

/**
 * Everything one flush commits, atomically: the entity writes of whole blocks, their `_poi` rows
 * and the `_metadata` keys that say how far indexing got (e.g. `lastProcessedHeight`).
 */
export interface FlushBatch {
  operations: readonly StoreOperation[];
  /** `_metadata` keys to upsert; values are JSON (bigints are stored as strings) */
  metadata?: Readonly<Record<string, unknown>>;
  poi?: readonly PoiRow[];
}

export type FilterOperator = '=' | '!=' | 'in' | '!in';
export type FieldFilter = readonly [field: string, op: FilterOperator, value: unknown];

export interface QueryOptions {
  limit?: number;
  offset?: number;
  /** a field (GraphQL name or property name); default `id` */
  orderBy?: string;
  orderDirection?: 'ASC' | 'DESC';
}

export interface EntityStore {
  /** Commits a batch in one transaction: all of it or nothing. */
  flush(batch: FlushBatch): Promise<void>;
  /** The entity as of `atHeight` (the version whose range holds it), else the live one. */
  get(entity: string, id: string, atHeight?: number): Promise<EntityData | undefined>;
  /** Entities whose field equals the value, or any of the values when given an array. */
  getByField(entity: string, field: string, value: unknown, options?: QueryOptions, atHeight?: number): Promise<EntityData[]>;
  /** Entities matching every filter (AND). */
  getByFields(entity: string, filters: readonly FieldFilter[], options?: QueryOptions, atHeight?: number): Promise<EntityData[]>;
  /** The entity types whose table holds no row at all, of any height or chain. */
  emptyEntities(): Promise<string[]>;
  /**
   * These types' tables are empty now, and only this store writes them from now on (no other chain,
   * no copy beside it): a flush need not close versions of ids it never stored. Were a row put in
   * behind its back, it could keep a live version that a later write should have closed.
   */
  writesAlone(entities: readonly string[]): void;
  /**
   * Back to the state right after block `height`: versions born later are deleted, versions closed
   * later are reopened, `_poi` rows above it are deleted and `lastProcessedHeight` becomes `height`,
   * in one transaction, together with any other `metadata` given (e.g. the unfinalized blocks
   * that remain). Needs historical mode.
   */
  rewind(height: number, metadata?: Readonly<Record<string, unknown>>): Promise<void>;
  getMetadata(key: string): Promise<unknown>;
  getMetadata(keys: readonly string[]): Promise<Record<string, unknown>>;
  setMetadata(entries: Readonly<Record<string, unknown>>): Promise<void>;
  /** `_poi` rows with `from <= id <= to`, by height */
  getPoi(from: number, to: number): Promise<PoiRow[]>;
  /** the newest `_poi` row at or below a height: where the hash chain continues after a restart or a rewind */
  getLatestPoi(atOrBelow: number): Promise<PoiRow | undefined>;
}

/**
 * What a project's mappings may do outside their sandbox: the port the node implements and the
 * sandbox calls. A chain family's host adds its chain reads (domain/chains/<family>/…-mapping-host.ts). Values are plain data (bigint, Date, strings, arrays, plain objects), never
 * functions or class instances, because they are copied across the isolate boundary.
 */

/** An entity's values by property name (`id`, `blockHeight`, `ownerId`, …) as codegen classes hold them. */
export type MappingEntityData = Record<string, unknown>;

export type MappingFilterOperator = '=' | '!=' | 'in' | '!in';
export type MappingFieldFilter = readonly [field: string, op: MappingFilterOperator, value: unknown];

export interface MappingQueryOptions {
  /** always set by the sandbox: the mapping's own limit, else `--query-limit` */
  limit: number;
  offset?: number;
  orderBy?: string;
  orderDirection?: 'ASC' | 'DESC';
}

/** The mapping store: reads see the block's own earlier writes; writes arrive in the order the mappings made them. */
export interface MappingStore {
  get(entity: string, id: string): Promise<MappingEntityData | undefined>;
  getByField(entity: string, field: string, value: unknown, options: MappingQueryOptions): Promise<MappingEntityData[]>;
  getByFields(entity: string, filters: readonly MappingFieldFilter[], options: MappingQueryOptions): Promise<MappingEntityData[]>;
  getOneByField(entity: string, field: string, value: unknown): Promise<MappingEntityData | undefined>;
  set(entity: string, id: string, data: MappingEntityData): Promise<void>;
  bulkCreate(entity: string, records: readonly MappingEntityData[]): Promise<void>;
  bulkUpdate(entity: string, records: readonly MappingEntityData[], fields?: readonly string[]): Promise<void>;
  remove(entity: string, id: string): Promise<void>;
  bulkRemove(entity: string, ids: readonly string[]): Promise<void>;
}

export type MappingLogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace';

export interface MappingHost {
  store: MappingStore;
  /** `logger.info(…)` and friends in a mapping; `fields` when the mapping logged an object */
  logger(level: MappingLogLevel, message: string, fields?: Record<string, unknown>): void;
  /** the lowest level `logger` prints (`--log-level`, or debug with `--debug` for the mapping): lower lines are dropped in the sandbox */
  logLevel?: MappingLogLevel | 'silent';
  /** a JSON-RPC read of the chain's node, params as the wire wants them; for `api` and `unsafeApi` */
  request(method: string, params: readonly unknown[]): Promise<unknown>;
  /** `createDynamicDatasource(templateName, args)`: args merge into the template's `options` */
  createDynamicDatasource(template: string, args: Record<string, unknown>): Promise<void>;
  /** the manifest's `network.chainId`, the `chainId` global */
  chainId: string;
}

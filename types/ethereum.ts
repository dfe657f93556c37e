// The types of @subql/types-ethereum and @subql/types-core that mappings use, so that a project
// typechecks without installing them. At run time, idx's sandbox provides the values.

/**
 * A decoded integer of more than 48 bits (an ethers v5 BigNumber): uint256 event and call
 * arguments arrive as this; smaller ones (uint8 … uint48) arrive as a number.
 */
export interface BigNumber {
  readonly _isBigNumber: true;
  readonly _hex: string;
  toBigInt(): bigint;
  toNumber(): number;
  toString(): string;
  toHexString(): string;
  toJSON(): { type: "BigNumber"; hex: string };
  isZero(): boolean;
  isNegative(): boolean;
  eq(other: BigNumberish): boolean;
  lt(other: BigNumberish): boolean;
  lte(other: BigNumberish): boolean;
  gt(other: BigNumberish): boolean;
  gte(other: BigNumberish): boolean;
  add(other: BigNumberish): BigNumber;
  sub(other: BigNumberish): BigNumber;
  mul(other: BigNumberish): BigNumber;
  div(other: BigNumberish): BigNumber;
  mod(other: BigNumberish): BigNumber;
  pow(other: BigNumberish): BigNumber;
  abs(): BigNumber;
}
export type BigNumberish = BigNumber | bigint | number | string;

/** An indexed event argument of a dynamic type (string, bytes, array, tuple): only its topic hash is known. */
export interface Indexed {
  readonly _isIndexed: true;
  readonly hash: string;
}

/** Decoded arguments: positional, with the named ones also as keys. */
export interface EthereumResult extends ReadonlyArray<any> {
  readonly [key: string]: any;
}

export interface EthereumBlock {
  number: number;
  hash: string;
  parentHash: string;
  /** seconds since the epoch */
  timestamp: bigint;
  nonce: string;
  difficulty: bigint;
  totalDifficulty: bigint;
  gasLimit: bigint;
  gasUsed: bigint;
  baseFeePerGas?: bigint;
  miner: string;
  extraData?: string;
  mixHash: string;
  logsBloom: string;
  receiptsRoot: string;
  sha3Uncles: string;
  stateRoot: string;
  transactionsRoot: string;
  size: bigint;
  uncles: string[];
  transactions: EthereumTransaction[];
  logs: EthereumLog[];
}

export interface EthereumTransaction<T = EthereumResult> {
  hash: string;
  blockHash: string;
  blockNumber: number;
  blockTimestamp: bigint;
  transactionIndex: bigint;
  from: string;
  to: string;
  value: bigint;
  input: string;
  gas: bigint;
  gasPrice: bigint;
  maxFeePerGas?: bigint;
  maxPriorityFeePerGas?: bigint;
  nonce: bigint;
  type: string;
  chainId?: string;
  accessList?: string[];
  v: bigint;
  r: string;
  s: string;
  /** decoded by the handler's `function` filter and the data source's ABI */
  args?: T;
  logs?: EthereumLog[];
  receipt(): Promise<EthereumReceipt>;
}

export interface EthereumReceipt {
  transactionHash: string;
  transactionIndex: number;
  blockHash: string;
  blockNumber: number;
  from: string;
  to: string;
  contractAddress: string;
  cumulativeGasUsed: bigint;
  effectiveGasPrice: bigint;
  gasUsed: bigint;
  logs: EthereumLog[];
  logsBloom: string;
  status: boolean;
  type: string;
}

export interface EthereumLog<T = EthereumResult> {
  address: string;
  topics: string[];
  data: string;
  blockHash: string;
  blockNumber: number;
  transactionHash: string;
  transactionIndex: number;
  logIndex: number;
  removed: boolean;
  /** decoded by the data source's ABI */
  args?: T;
  block: EthereumBlock;
  transaction: EthereumTransaction;
}

export type LightEthereumBlock = Omit<EthereumBlock, "transactions" | "logs"> & { logs: LightEthereumLog[]; transactions: string[] };
export type LightEthereumLog<T = EthereumResult> = Omit<EthereumLog<T>, "transaction" | "block"> & { block: LightEthereumBlock };

// ---- the store (@subql/types-core) ----

export interface Entity {
  id: string;
  _name?: string;
  save?: () => Promise<void>;
}

export type FunctionPropertyNames<T> = { [K in keyof T]: T[K] extends (...args: any[]) => any ? K : never }[keyof T];

export interface GetOptions<T> {
  /** at most the node's --query-limit (default 100) */
  limit?: number;
  offset?: number;
  orderBy?: keyof T;
  orderDirection?: "ASC" | "DESC";
}

export type FieldOperators = "=" | "!=" | "in" | "!in";
export type FieldsExpression<T> = [field: keyof T, operator: FieldOperators, value: T[keyof T] | Array<T[keyof T]>];

export interface Store {
  get(entity: string, id: string): Promise<Entity | undefined>;
  /** the field must be indexed */
  getByField(entity: string, field: string, value: unknown, options?: GetOptions<any>): Promise<Entity[]>;
  getByFields<T extends Entity>(entity: string, filter: FieldsExpression<T>[], options?: GetOptions<T>): Promise<T[]>;
  /** the field must have a unique index */
  getOneByField(entity: string, field: string, value: unknown): Promise<Entity | undefined>;
  set(entity: string, id: string, data: Entity): Promise<void>;
  bulkCreate(entity: string, data: Entity[]): Promise<void>;
  bulkUpdate(entity: string, data: Entity[], fields?: string[]): Promise<void>;
  remove(entity: string, id: string): Promise<void>;
  bulkRemove(entity: string, ids: string[]): Promise<void>;
}

export interface Logger {
  trace(message: unknown, ...args: unknown[]): void;
  debug(message: unknown, ...args: unknown[]): void;
  info(message: unknown, ...args: unknown[]): void;
  warn(message: unknown, ...args: unknown[]): void;
  error(message: unknown, ...args: unknown[]): void;
  fatal(message: unknown, ...args: unknown[]): void;
}

/** Calls to the chain, pinned to the block being processed (an ethers v5 Provider's read methods). */
export interface EthereumApi {
  call(transaction: { to: string; data: string; from?: string }, blockTag?: string | number): Promise<string>;
  getBalance(address: string, blockTag?: string | number): Promise<BigNumber>;
  getCode(address: string, blockTag?: string | number): Promise<string>;
  getStorageAt(address: string, position: BigNumberish, blockTag?: string | number): Promise<string>;
  getTransactionCount(address: string, blockTag?: string | number): Promise<number>;
  getBlockNumber(): Promise<number>;
  send(method: string, params: unknown[]): Promise<any>;
}

/** In-memory, per-process; not saved and not rolled back. */
export interface Cache {
  get<T = unknown>(key: string): Promise<T | undefined>;
  set(key: string, value: unknown): Promise<void>;
}

// ---- the manifest (project.ts) ----

export enum EthereumDatasourceKind {
  Runtime = "ethereum/Runtime",
}

export enum EthereumHandlerKind {
  Block = "ethereum/BlockHandler",
  Call = "ethereum/TransactionHandler",
  Event = "ethereum/LogHandler",
}

export interface EthereumBlockFilter {
  modulo?: number;
  /** a cron expression */
  timestamp?: string;
}
export interface EthereumTransactionFilter {
  from?: string;
  /** null: contract creations */
  to?: string | null;
  /** a signature such as "transfer(address,uint256)" or a 4-byte selector */
  function?: string | null;
}
export interface EthereumLogFilter {
  /** an event signature, a hex value, null (any) or "!null" (present) per topic */
  topics?: Array<string | null | undefined>;
}

export type EthereumHandler =
  | { kind: EthereumHandlerKind.Block | "ethereum/BlockHandler"; handler: string; filter?: EthereumBlockFilter }
  | { kind: EthereumHandlerKind.Call | "ethereum/TransactionHandler"; handler: string; filter?: EthereumTransactionFilter }
  | { kind: EthereumHandlerKind.Event | "ethereum/LogHandler"; handler: string; filter?: EthereumLogFilter };

export interface EthereumMapping {
  /** the built entry, e.g. "./dist/index.js" */
  file: string;
  handlers: EthereumHandler[];
}

export type EthereumAssets = Map<string, { file: string }> | Record<string, { file: string }>;

export interface EthereumRuntimeDatasource {
  kind: EthereumDatasourceKind.Runtime | "ethereum/Runtime";
  startBlock?: number;
  endBlock?: number;
  options?: { abi?: string; address?: string };
  assets?: EthereumAssets;
  mapping: EthereumMapping;
}
export type SubqlRuntimeDatasource = EthereumRuntimeDatasource;

export interface EthereumTemplate extends Omit<EthereumRuntimeDatasource, "startBlock" | "endBlock"> {
  name: string;
}

export interface EthereumNetworkConfig {
  chainId: string;
  endpoint: string | string[] | Record<string, { headers?: Record<string, string>; batchSize?: number }>;
  dictionary?: string | string[];
  bypassBlocks?: Array<number | string>;
}

export interface EthereumProject<DS = EthereumRuntimeDatasource> {
  specVersion: string;
  version?: string;
  name?: string;
  description?: string;
  repository?: string;
  runner?: {
    node: { name: string; version: string; options?: { historical?: boolean; unsafe?: boolean; unfinalizedBlocks?: boolean; skipTransactions?: boolean } };
    query: { name: string; version: string };
  };
  schema: { file: string };
  network: EthereumNetworkConfig;
  dataSources: DS[];
  templates?: EthereumTemplate[];
}

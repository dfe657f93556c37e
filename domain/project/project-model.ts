import { isRuntimeKind, type RuntimeKind } from '../chains/families.ts';

/**
 * A SubQuery-compatible project manifest (specVersion 1.0.0), Ethereum or Substrate, after validation.
 * Field names follow SubQuery's so existing `project.yaml`/`project.ts` files load unchanged.
 */

export type EthereumHandlerKind = 'ethereum/BlockHandler' | 'ethereum/TransactionHandler' | 'ethereum/LogHandler';
export type SubstrateHandlerKind = 'substrate/BlockHandler' | 'substrate/EventHandler' | 'substrate/CallHandler';
export type HandlerKind = EthereumHandlerKind | SubstrateHandlerKind;
/** A family's runtime kind (domain/chains/families.ts) */
export type DataSourceKind = RuntimeKind;
/**
 * A custom Substrate data source (SubQuery's `substrate/FrontierEvm`, `substrate/Wasm`, …): its
 * `processor` file turns the runtime's blocks, extrinsics or events into what its handlers receive.
 */
export type CustomDataSourceKind = `substrate/${string}`;
/** The handler kinds each data-source kind allows. */
export const HANDLER_KINDS: Readonly<Record<DataSourceKind, readonly HandlerKind[]>> = {
  'ethereum/Runtime': ['ethereum/BlockHandler', 'ethereum/TransactionHandler', 'ethereum/LogHandler'],
  'substrate/Runtime': ['substrate/BlockHandler', 'substrate/EventHandler', 'substrate/CallHandler'],
};

export interface BlockFilter {
  modulo?: number;
  /** cron expression */
  timestamp?: string;
}

export interface TransactionFilter {
  from?: string;
  /** null means contract creation */
  to?: string | null;
  /** a signature like `transfer(address,uint256)` or a 4-byte selector; null or `0x` means no input */
  function?: string | null;
}

export interface LogFilter {
  /** topics[0..3]: an event signature, a hex value, null (any) or `!null` (present) */
  topics?: (string | null)[];
}

/** Substrate filters of every kind: `[from, to]` spec versions of the runtime a block ran, both ends kept, null for open. */
export interface SpecVersionFilter {
  specVersion?: [number | null, number | null];
}

/** `substrate/EventHandler`: the event's pallet (`module`, e.g. `balances`) and name (`method`, e.g. `Transfer`). */
export interface SubstrateEventFilter extends SpecVersionFilter {
  module?: string;
  method?: string;
}

/** `substrate/CallHandler`: the extrinsic's pallet and call, whether it succeeded, whether it is signed. */
export interface SubstrateCallFilter extends SpecVersionFilter {
  module?: string;
  method?: string;
  success?: boolean;
  isSigned?: boolean;
}

export type Handler =
  | { kind: 'ethereum/BlockHandler'; handler: string; filter?: BlockFilter }
  | { kind: 'ethereum/TransactionHandler'; handler: string; filter?: TransactionFilter }
  | { kind: 'ethereum/LogHandler'; handler: string; filter?: LogFilter }
  | { kind: 'substrate/BlockHandler'; handler: string; filter?: BlockFilter & SpecVersionFilter }
  | { kind: 'substrate/EventHandler'; handler: string; filter?: SubstrateEventFilter }
  | { kind: 'substrate/CallHandler'; handler: string; filter?: SubstrateCallFilter }
  | CustomHandler;

/**
 * A handler of a custom data source: `processorKind` is the manifest's `kind` (one of the processor's
 * `handlerProcessors`, e.g. `substrate/FrontierEvmEvent`); its filter is the processor's to check.
 */
export interface CustomHandler {
  kind: 'custom';
  processorKind: string;
  handler: string;
  filter?: Record<string, unknown>;
}

/** A custom data source's `processor`: a built plug-in (`file`, relative to the project root) and its `options`. */
export interface DataSourceProcessor {
  file: string;
  options?: Record<string, unknown>;
}

export interface Mapping {
  /** built entry, e.g. `./dist/index.js` */
  file: string;
  handlers: Handler[];
}

export interface DataSource {
  kind: DataSourceKind | CustomDataSourceKind;
  startBlock: number;
  endBlock?: number;
  options?: { abi?: string; address?: string };
  /** name → file (relative to the project root) */
  assets: Record<string, { file: string }>;
  /** custom data sources only */
  processor?: DataSourceProcessor;
  mapping: Mapping;
}

/** SubQuery's rule: a data source is custom when its kind is not a runtime kind (it then has a processor). */
export function isCustomDataSource(ds: Pick<DataSource, 'kind'>): boolean {
  return !isRuntimeKind(ds.kind);
}

export interface Template extends Omit<DataSource, 'startBlock' | 'endBlock'> {
  name: string;
}

export interface EndpointConfig {
  url: string;
  headers?: Record<string, string>;
  batchSize?: number;
}

export interface Network {
  chainId: string;
  endpoints: EndpointConfig[];
  dictionary?: string | string[];
  bypassBlocks?: (number | string)[];
  /** Substrate: a file of custom types for the chain's registry (`types`, `typesBundle`…), relative to the project root */
  chaintypes?: { file: string };
}

export interface Runner {
  node: { name: string; version: string; options?: { historical?: boolean; unsafe?: boolean; unfinalizedBlocks?: boolean; skipTransactions?: boolean } };
  query: { name: string; version: string };
}

export interface ProjectManifest {
  specVersion: string;
  name?: string;
  version?: string;
  description?: string;
  repository?: string;
  runner?: Runner;
  schema: { file: string };
  /** absent only in manifests that never reach the node; the node requires it */
  network?: Network;
  dataSources: DataSource[];
  templates: Template[];
}

/** The height indexing starts from: the lowest `startBlock` of the manifest's data sources. */
export function projectStartHeight(dataSources: readonly Pick<DataSource, 'startBlock'>[]): number {
  return Math.min(...dataSources.map((d) => d.startBlock));
}

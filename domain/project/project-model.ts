import { FAMILIES, isRuntimeKind, type RuntimeHandler, type RuntimeKind } from '../chains/families.ts';

/**
 * A SubQuery-compatible project manifest (specVersion 1.0.0), of any chain family, after validation.
 * Field names follow SubQuery's so existing `project.yaml`/`project.ts` files load unchanged. What
 * is a family's (its handler kinds and their filters) is in domain/chains/<family>/manifest-rules.ts.
 */

/** A runtime data source's handler kind, of any family */
export type HandlerKind = RuntimeHandler['kind'];
/** A family's runtime kind (domain/chains/families.ts) */
export type DataSourceKind = RuntimeKind;
/**
 * A custom data source's kind (SubQuery's `substrate/FrontierEvm`, `substrate/Wasm`, …): a family's
 * prefix and a name. Its `processor` file turns the runtime's blocks, extrinsics or events into what
 * its handlers receive.
 */
export type CustomDataSourceKind = `${(typeof FAMILIES)[number]['kindPrefix']}${string}`;
export interface BlockFilter {
  modulo?: number;
  /** cron expression */
  timestamp?: string;
}

export type Handler = RuntimeHandler | CustomHandler;

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

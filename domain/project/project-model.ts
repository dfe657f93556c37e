/**
 * A SubQuery-compatible Ethereum project manifest (specVersion 1.0.0), after validation.
 * Field names follow SubQuery's so existing `project.yaml`/`project.ts` files load unchanged.
 */

export type HandlerKind = 'ethereum/BlockHandler' | 'ethereum/TransactionHandler' | 'ethereum/LogHandler';
export const HANDLER_KINDS: readonly HandlerKind[] = ['ethereum/BlockHandler', 'ethereum/TransactionHandler', 'ethereum/LogHandler'];

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

export type Handler =
  | { kind: 'ethereum/BlockHandler'; handler: string; filter?: BlockFilter }
  | { kind: 'ethereum/TransactionHandler'; handler: string; filter?: TransactionFilter }
  | { kind: 'ethereum/LogHandler'; handler: string; filter?: LogFilter };

export interface Mapping {
  /** built entry, e.g. `./dist/index.js` */
  file: string;
  handlers: Handler[];
}

export interface DataSource {
  kind: 'ethereum/Runtime';
  startBlock: number;
  endBlock?: number;
  options?: { abi?: string; address?: string };
  /** name → file (relative to the project root) */
  assets: Record<string, { file: string }>;
  mapping: Mapping;
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

/** The `-c` config file (docs/usage.md "Config file"). */
export interface NodeConfigFile {
  idx: string;
  idxName?: string;
  batchSize?: number;
}

/** The height indexing starts from: the lowest `startBlock` of the manifest's data sources. */
export function projectStartHeight(dataSources: readonly Pick<DataSource, 'startBlock'>[]): number {
  return Math.min(...dataSources.map((d) => d.startBlock));
}

import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import type { ChainFamily, ChainFamilyName, FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import type { MappingHost } from '../../../domain/mapping/mapping-host.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { ProjectFiles } from '../../../infra/project/read-project-files.ts';
import type { Sandbox } from '../../../infra/sandbox/create-sandbox.ts';
import type { ChainTypesSource, CustomSourcesInstall } from '../../../infra/sandbox/isolate/wire.ts';
import type { RunResult } from '../../../infra/sandbox/run-in-runtime.ts';
import type { BlockRan } from '../../../infra/sandbox/sandbox-family.ts';
import type { RangeFetcher } from '../indexing/range-fetcher.ts';

/** A block of a run: its content and calls, and `enter`, told when its writes and host calls begin. */
export interface RunBlock<Content, Call> {
  content: Content;
  calls: readonly Call[];
  enter: () => void;
}

/** What the mapping host of every family shares: the store, the log, the block's height, data-source creation. */
export interface CommonHostParts {
  cache: StoreCache;
  logger: Logger;
  chainId: string;
  currentHeight: () => number;
  createDynamicDatasource: (template: string, args: Record<string, unknown>) => void;
}

/**
 * A chain as the node uses it once connected and checked, whatever its family: what the start-up
 * phases, the sandbox and the indexing loop need (run-node.ts). Methods, so that a family's own
 * types fit `AnyNodeChain`.
 */
export interface NodeChain<Compiled, Plan, Fetched extends FetchedBlocks, Content, Call> {
  readonly genesisHash: string;
  /** `/meta` and `_metadata`: the runtime's name (`ethereum` for EVM chains) */
  readonly specName: string;
  /** `/meta`'s `chainSdkVersion` */
  readonly chainSdkVersion: string;
  /** the sandbox's family: what `api` is, how blocks are handed over */
  readonly sandboxFamily: ChainFamilyName;
  /** Substrate: the project's chain types (`network.chaintypes`), which the sandbox makes its registries with */
  readonly sandboxChainTypes?: ChainTypesSource;
  /** heads, finality and block identities for the indexing loop (retried there) */
  readonly source: {
    bestHeight(): Promise<number>;
    finalizedHeight(): Promise<number | null>;
    getBlockRefs(heights: readonly number[]): Promise<BlockRef[]>;
  };
  /** a stored genesis hash must be this chain's */
  checkStoredGenesis(stored: string): void;
  /** `processors`: the custom data source processors the sandbox loaded (Substrate), by file */
  family(files: ProjectFiles, processors: Sandbox['processors']): ChainFamily<Compiled, Plan, Fetched, Content, Call>;
  /** what the sandbox loads beside the project: the custom data sources' processors and assets (Substrate) */
  readonly sandboxCustom?: CustomSourcesInstall;
  /** ranges fetched as the family plans them, through the first dictionary that answers */
  fetcher(dictionaries: readonly string[], logger: Logger, onUseDictionary: (using: boolean) => void): RangeFetcher<Plan, Fetched>;
  /** the sandbox's view of the node: store calls, chain reads */
  mappingHost(common: CommonHostParts): MappingHost;
  /** runs a block's calls in the sandbox; `ran`: it stopped after that many, the last of which created data sources */
  runBlock(sandbox: Sandbox, content: Content, calls: readonly Call[]): Promise<BlockRan>;
  /** runs blocks' calls in one entry into the sandbox (run-in-runtime.ts); without it, one block at a time */
  runBlocks?(sandbox: Sandbox, blocks: readonly RunBlock<Content, Call>[], budgetMs?: number): Promise<RunResult>;
  /** readies the sandbox for this chain's blocks while the first range is fetched (not awaited) */
  warmUp?(sandbox: Sandbox): void;
}

export type AnyNodeChain = NodeChain<any, any, FetchedBlocks, any, any>;

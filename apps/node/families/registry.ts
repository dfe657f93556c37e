import type { ChainFamilyName } from '../../../domain/chains/chain-family.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import type { NodeOptions } from '../start-up/node-options.ts';
import type { CacheRules } from '../../../infra/rpc/cache/cacheable-call.ts';
import { ETHEREUM_CACHE_RULES } from '../../../infra/chains/ethereum/rpc-cache-rules.ts';
import { SUBSTRATE_CACHE_RULES } from '../../../infra/chains/substrate/rpc-cache-rules.ts';
import type { ClientLayer } from './chain-clients.ts';
import type { RpcCacheLayer } from './rpc-cache-layer.ts';
import type { AnyNodeChain } from './node-chain.ts';

/** What a family is given to reach its chain. */
export interface ConnectChainInput {
  network: NonNullable<LoadedProject['manifest']['network']>;
  project: LoadedProject;
  options: NodeOptions;
  log: Logger;
  /** aborting stops the start-up's retries */
  signal: AbortSignal;
  /** idx's version, for `/meta`'s chainSdkVersion */
  version: string;
  /** put between every JSON-RPC client of the chain and its endpoints (`idx-node test`'s recordings) */
  clientLayer?: ClientLayer;
  /** the RPC cache behind `clientLayer`, for clients made elsewhere (`--workers` threads) */
  rpcCache?: RpcCacheLayer;
}

/** A chain family, as the node starts it: the rest of its parts come with the chain it connects. */
export interface NodeFamily {
  /** `/meta`'s `specName` before the chain is reached, when the family knows it without asking (a Substrate chain's is its runtime's) */
  readonly specName?: string;
  /** which of its chain's answers the RPC cache may keep */
  readonly cacheRules: CacheRules;
  connect(input: ConnectChainInput): Promise<AnyNodeChain>;
}

/**
 * The chain families the node indexes, by the name `familyOfKinds` gives a project. Each family's
 * code is imported only when a project needs it: @polkadot/types would cost every EVM start a
 * second and 40 MB.
 */
export const nodeFamilies: Record<ChainFamilyName, NodeFamily> = {
  ethereum: {
    specName: 'ethereum',
    cacheRules: ETHEREUM_CACHE_RULES,
    connect: async (c) =>
      (await import('./ethereum/ethereum-chain.ts')).connectEthereumChain(c.network, c.options, c.log, c.signal, c.version, c.clientLayer, c.rpcCache),
  },
  substrate: {
    cacheRules: SUBSTRATE_CACHE_RULES,
    connect: async (c) =>
      (await import('./substrate/substrate-chain.ts')).connectSubstrateChain(c.network, c.project, c.options, c.log, c.signal, c.clientLayer),
  },
};

/** What one node program is: `idx-node` runs every family, `idx-node-ethereum` the EVM family only. */
export interface NodeVariant {
  program: string;
  /** the first line of --help */
  description: string;
  /** the one family this program runs; every family when absent */
  only?: ChainFamilyName;
  /** whether --block-confirmations sets finality here (EVM chains without a finalized tag); elsewhere it is ignored with a warning */
  blockConfirmations: boolean;
}

export const nodeVariants = {
  base: {
    program: 'idx-node',
    description: "Indexes a Substrate or EVM chain into PostgreSQL (or embedded PGlite) by running a SubQuery project's mappings.",
    blockConfirmations: false,
  },
  ethereum: {
    program: 'idx-node-ethereum',
    description: "Indexes an EVM chain into PostgreSQL (or embedded PGlite) by running a SubQuery project's mappings.",
    only: 'ethereum',
    blockConfirmations: true,
  },
} satisfies Record<string, NodeVariant>;

export type NodeVariantName = keyof typeof nodeVariants;

/** The programs that honour --block-confirmations, for the help and warnings of those that do not. */
export const blockConfirmationPrograms = (): string =>
  Object.values(nodeVariants as Record<string, NodeVariant>)
    .filter((v) => v.blockConfirmations)
    .map((v) => v.program)
    .join(', ');

import type { IndexerStatus } from '../indexing/indexer-status.ts';
import type { MetaDocument } from './node-http.ts';

/** What `/meta` says of the chain and the process besides the indexer's status. */
export interface MetaFacts {
  version: string;
  startedAt: number;
  /** the family's fields: `chain`, `specName`, `genesisHash`, `chainSdkVersion` */
  chain: { chain?: string; specName?: string; genesisHash?: string; chainSdkVersion: string };
  apiConnected: boolean;
  usingDictionary: boolean;
}

/** The `/meta` document now. */
export function metaDocument(status: IndexerStatus, facts: MetaFacts): MetaDocument {
  return {
    currentProcessingHeight: status.currentProcessingHeight,
    currentProcessingTimestamp: status.currentProcessingTimestamp,
    targetHeight: status.targetHeight,
    bestHeight: status.bestHeight,
    indexerNodeVersion: facts.version,
    lastProcessedHeight: status.lastProcessedHeight,
    lastProcessedTimestamp: status.lastProcessedTimestamp,
    uptime: (Date.now() - facts.startedAt) / 1000,
    chainSdkVersion: facts.chain.chainSdkVersion,
    apiConnected: facts.apiConnected,
    injectedApiConnected: false,
    usingDictionary: facts.usingDictionary,
    chain: facts.chain.chain,
    specName: facts.chain.specName,
    genesisHash: facts.chain.genesisHash,
    blockTime: status.blockTimes.average(),
  };
}

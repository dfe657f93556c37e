import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { StoreCache } from '../../../../domain/entities/store-cache.ts';
import { IdxError } from '../../../../domain/errors.ts';
import type { EthereumMappingHost } from '../../../../domain/chains/ethereum/ethereum-mapping-host.ts';
import type { BlockExtrasLoader } from './block-extras.ts';
import type { Logger } from '../../../../infra/logging/create-logger.ts';
import { mappingStoreOf } from '../mapping-store.ts';

export interface MappingHostDeps {
  cache: StoreCache;
  source: ChainSource;
  /** raw JSON-RPC for `api`'s other reads */
  request: (method: string, params: readonly unknown[]) => Promise<unknown>;
  logger: Logger;
  chainId: string;
  /** the block whose handlers are running: writes are stamped with it */
  currentHeight: () => number;
  createDynamicDatasource: (template: string, args: Record<string, unknown>) => void;
  extras: Pick<BlockExtrasLoader, 'load'>;
}

/** The node's side of the sandbox: store calls go to the cache, chain reads to the source. */
export function createMappingHost(deps: MappingHostDeps): EthereumMappingHost {
  const log = deps.logger.child('mapping');
  return {
    chainId: deps.chainId,
    store: mappingStoreOf(deps.cache, deps.currentHeight),
    logger: (level, message, fields) => log[level](message, fields),
    logLevel: log.level(),
    ethCall: (request, height) => (height === 'latest' ? deps.request('eth_call', [request, 'latest']).then(String) : deps.source.call(request, height)),
    request: deps.request,
    blockExtras: (height, want) => deps.extras.load(height, want),
    async getReceipt(hash) {
      const [receipt] = await deps.source.getReceipts([hash]);
      if (receipt === undefined) throw new IdxError('CHAIN_RECEIPT_NOT_FOUND', `no receipt for transaction ${hash}`);
      return receipt;
    },
    createDynamicDatasource: async (template, args) => deps.createDynamicDatasource(template, args),
  };
}

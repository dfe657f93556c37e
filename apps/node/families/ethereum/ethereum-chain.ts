import { keccak256, toBytes } from 'viem/utils';
import { createDictionaryClient } from '../../../../infra/chains/ethereum/create-dictionary-client.ts';
import type { Logger } from '../../../../infra/logging/create-logger.ts';
import type { LoadedProject } from '../../../../infra/project/load-project.ts';
import type { ProjectFiles } from '../../../../infra/project/read-project-files.ts';
import { createEthereumSource } from '../../../../infra/chains/ethereum/create-ethereum-source.ts';
import { RpcUnreachableError } from '../../../../infra/rpc/rpc-error.ts';
import { ETHEREUM_RANGED_METHODS } from '../../../../infra/chains/ethereum/ranged-methods.ts';
import { verifyChainRetrying } from '../../../../infra/chains/ethereum/verify-chain.ts';
import { checkStoredGenesis } from '../../../../infra/rpc/check-stored-genesis.ts';
import { createBlockExtrasLoader } from './block-extras.ts';
import { createDictionaryFetcher } from './dictionary-fetcher.ts';
import type { NodeOptions } from '../../start-up/node-options.ts';
import { createLocalFetcher } from './local-fetcher.ts';
import { createWorkerFetcher } from './worker-fetcher.ts';
import { createEthereumFamily, type EthereumSource } from './ethereum-family.ts';
import type { NodeChain } from '../node-chain.ts';
import { chainClients, chainUnreachable, type ClientLayer } from '../chain-clients.ts';
import { createMappingHost } from './create-mapping-host.ts';
import type { RpcCacheLayer } from '../rpc-cache-layer.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import type { BlockContent, HandlerCall } from '../../../../domain/chains/ethereum/handler-call.ts';
import type { FetchedRange } from './fetch-range.ts';

type Network = NonNullable<LoadedProject['manifest']['network']>;
const keccak = (text: string) => keccak256(toBytes(text));

/**
 * An EVM chain as the node uses it: checked to be the manifest's chain, with a client for the
 * indexing loop (which retries itself: fetch-retry.ts) and one for the handlers' reads (which keep
 * the client's own retries, as nothing above them can retry half a block).
 */
export async function connectEthereumChain(
  network: Network,
  options: NodeOptions,
  log: Logger,
  signal: AbortSignal,
  version: string,
  clientLayer?: ClientLayer,
  rpcCache?: RpcCacheLayer,
): Promise<NodeChain<EthereumSource, FetchPlan, FetchedRange, BlockContent, HandlerCall>> {
  // routeByRange: among several endpoints, idx-shard ones get the calls for the blocks they hold
  const { rpc, client, handlerClient } = chainClients(network, undefined, { routeByRange: ETHEREUM_RANGED_METHODS }, clientLayer);
  const source = createEthereumSource(client);
  const handlerSource = createEthereumSource(handlerClient);
  const identity = await verifyChainRetrying(
    client,
    { chainId: network.chainId },
    {
      signal,
      onRetry: (err, attempt, waitMs, attempts) => {
        const why = err instanceof RpcUnreachableError ? err.failures.map((f) => `${f.endpoint}: ${f.error}`).join('; ') : err.message;
        log.warn(`checking the chain failed (${why}); retrying in ${waitMs} ms (${attempt}/${attempts - 1})`);
      },
    },
  ).catch(chainUnreachable);
  const extras = createBlockExtrasLoader(handlerSource, { prefetch: options.unsafe, onLearn: (message) => log.info(message) });

  return {
    genesisHash: identity.genesisHash,
    // EVM chains have no runtime name; the SDK is idx itself
    specName: 'ethereum',
    chainSdkVersion: version,
    sandboxFamily: 'ethereum',
    source,
    // verifyChain already asked every endpoint: a stored genesis is compared with its answer
    checkStoredGenesis: (stored: string) => checkStoredGenesis(stored, identity.genesisHash, client.endpoints.join(', ')),
    family: (files: ProjectFiles) => createEthereumFamily({ abiOf: files.abiOf, keccak256: keccak, extras }),
    mappingHost: (common) =>
      createMappingHost({ ...common, source: handlerSource, request: (method, params) => handlerClient.request(method, params), extras }),
    runBlock: (sandbox, content, calls) => sandbox.runBlock(content, calls),
    runBlocks: (sandbox, blocks, budgetMs) => sandbox.runBlocks(blocks, budgetMs),

    // ranges fetched here or in --workers threads, through the first dictionary that answers
    fetcher(dictionaries, logger, onUseDictionary) {
      const fetchOptions = { verifyReceipts: options.verifyReceipts };
      let fetcher = options.workers > 0 ? createWorkerFetcher(options.workers, rpc, fetchOptions, rpcCache) : createLocalFetcher(source, fetchOptions);
      if (options.workers > 0) log.info(`fetching with ${options.workers} worker thread${options.workers === 1 ? '' : 's'}`);
      if (dictionaries.length === 0) return fetcher;
      fetcher = createDictionaryFetcher(fetcher, {
        dictionaries: dictionaries.map((url) => createDictionaryClient({ url, timeoutSeconds: options.dictionaryTimeout })),
        chain: { chainId: network.chainId, genesisHash: identity.genesisHash },
        logger: logger.child('dictionary'),
        onUse: onUseDictionary,
      });
      return fetcher;
    },
  };
}

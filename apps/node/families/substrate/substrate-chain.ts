import { resolve } from 'node:path';
import { IdxError } from '../../../../domain/errors.ts';
import { unknownFilterNames } from '../../../../domain/chains/substrate/unknown-filter-names.ts';
import { createSubstrateSource } from '../../../../infra/chains/substrate/create-substrate-source.ts';
import type { Logger } from '../../../../infra/logging/create-logger.ts';
import type { LoadedProject } from '../../../../infra/project/load-project.ts';
import { loadChainTypes } from '../../../../infra/chains/substrate/load-chain-types.ts';
import { checkStoredGenesis } from '../../../../infra/rpc/check-stored-genesis.ts';
import { withFetchRetry, DEFAULT_FETCH_RETRY } from '../../indexing/fetch-retry.ts';
import { mappingStoreOf } from '../mapping-store.ts';
import type { NodeOptions } from '../../start-up/node-options.ts';
import type { NodeChain } from '../node-chain.ts';
import { chainClients, chainUnreachable, type ClientLayer } from '../chain-clients.ts';
import { createSubstrateFamily, type SubstrateFetched, type SubstratePlan } from './substrate-family.ts';
import { readCustomSources } from '../../../../infra/project/read-custom-sources.ts';
import type { SubstrateCompiledSource, SubstrateHandlerCall } from '../../../../domain/chains/substrate/match-substrate-handlers.ts';
import type { SubstrateBlock } from '../../../../domain/chains/substrate/substrate-block.ts';
import type { SubstrateMappingHost } from '../../../../domain/chains/substrate/substrate-mapping-host.ts';

type Network = NonNullable<LoadedProject['manifest']['network']>;

/** The `@polkadot/types` release the node decodes with: `/meta`'s `chainSdkVersion` for Substrate chains. */
const POLKADOT_TYPES_VERSION = '16.5.6';

/**
 * Substrate nodes serve JSON-RPC over HTTP and WebSocket on one port: a `ws(s)://` endpoint is asked
 * over `http(s)://` at the same address, so that calls can be batched and failed over like EVM ones.
 */
export function httpEndpointOf(url: string): string {
  return url.replace(/^ws(s?):\/\//i, 'http$1://');
}

/** A Substrate chain as the node uses it, checked to be the one the manifest names (its genesis hash). */
export async function connectSubstrateChain(
  network: Network,
  project: LoadedProject,
  options: NodeOptions,
  log: Logger,
  signal: AbortSignal,
  clientLayer?: ClientLayer,
): Promise<NodeChain<SubstrateCompiledSource, SubstratePlan, SubstrateFetched, SubstrateBlock, SubstrateHandlerCall>> {
  const { client, handlerClient } = chainClients(network, httpEndpointOf, {}, clientLayer);
  const chainTypes = network.chaintypes === undefined ? undefined : await loadChainTypes(project, network.chaintypes.file, { timeoutMs: options.timeout });
  const source = createSubstrateSource(client, { ...(chainTypes && { chainTypes: chainTypes.registry }) });
  const identify = async () => {
    const [genesisHash, version] = await Promise.all([source.genesisHash(), source.runtimeVersion()]);
    return { genesisHash: genesisHash.toLowerCase(), specName: version.specName, specVersion: version.specVersion };
  };
  const identity = await withFetchRetry({ label: 'checking the chain' }, identify, { ...DEFAULT_FETCH_RETRY, laggingPatienceMs: 0 }, log, signal).catch(
    chainUnreachable,
  );
  if (identity.genesisHash !== network.chainId.toLowerCase()) {
    throw new IdxError(
      'CHAIN_ID_MISMATCH',
      `${project.manifestPath}: network.chainId is ${network.chainId}, but ${client.endpoints.join(', ')} serves the chain with genesis hash ${identity.genesisHash}; set network.chainId to the genesis hash of the chain you mean to index, or point network.endpoint at that chain`,
    );
  }
  // filters naming what the head's runtime lacks match nothing in its blocks: said once, then indexed as
  // SubQuery does (an earlier or later runtime may have the pallet)
  const runtime = await withFetchRetry({ label: 'reading the runtime metadata' }, () => source.runtimeNamesAtHead(), DEFAULT_FETCH_RETRY, log, signal);
  for (const p of [
    ...unknownFilterNames(project.manifest.dataSources, runtime, 'dataSources'),
    ...unknownFilterNames(project.manifest.templates, runtime, 'templates'),
  ])
    log.warn(
      `${project.manifestPath}: ${p.path}: ${p.message} (spec version ${identity.specVersion} at the head): the handler matches no block of that runtime`,
    );
  if (options.workers > 0) log.warn('--workers applies to EVM chains: Substrate blocks are fetched in this thread');
  const sandboxCustom = await readCustomSources(project);

  return {
    genesisHash: identity.genesisHash,
    specName: identity.specName,
    chainSdkVersion: POLKADOT_TYPES_VERSION,
    sandboxFamily: 'substrate',
    ...(chainTypes && { sandboxChainTypes: chainTypes.sandbox }),
    source,
    checkStoredGenesis: (stored) => checkStoredGenesis(stored, identity.genesisHash, client.endpoints.join(', ')),
    family: (_files, processors) =>
      createSubstrateFamily(identity.specName, { shapeOf: (file) => processors[file], absolute: (file) => resolve(project.root, file) }),
    ...(sandboxCustom !== undefined && { sandboxCustom }),
    fetcher(dictionaries) {
      if (dictionaries.length > 0) log.warn('dictionaries are not used for Substrate chains yet: fetching everything from the chain');
      return {
        parallelism: 1,
        async fetch(plan) {
          const blocks = await source.getBlocks(plan.from, plan.to);
          return { blocks: new Map(blocks.map((b) => [b.height, b])), logCount: blocks.reduce((n, b) => n + b.events.length, 0) };
        },
        close: async () => undefined,
      };
    },
    mappingHost(common): SubstrateMappingHost {
      const log = common.logger.child('mapping');
      return {
        chainId: common.chainId,
        store: mappingStoreOf(common.cache, common.currentHeight),
        logger: (level, message, fields) => log[level](message, fields),
        logLevel: log.level(),
        request: (method, params) => handlerClient.request(method, params),
        createDynamicDatasource: async (template, args) => common.createDynamicDatasource(template, args),
        substrateRuntime: (specVersion) => source.runtimeInputs(specVersion),
      };
    },
    runBlock: (sandbox, block, calls) => sandbox.runSubstrateBlock(block, calls),
    runBlocks: (sandbox, blocks, budgetMs) => sandbox.runSubstrateBlocks(blocks, budgetMs),
    // the head's runtime (its metadata was read for the filter check): a block of another runtime makes its own
    warmUp: (sandbox) =>
      void sandbox
        .prepareSubstrateRuntime(identity.specVersion)
        .catch((err: unknown) => log.debug(`the mappings' runtime was not made ahead: ${(err as Error).message}; the first block makes it`)),
  };
}

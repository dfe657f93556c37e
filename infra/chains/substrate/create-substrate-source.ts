import { expandMetadata, type Metadata, type TypeRegistry } from '@polkadot/types';
import type { RuntimeNames } from '../../../domain/chains/substrate/unknown-filter-names.ts';
import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import type { SubstrateBlock } from '../../../domain/chains/substrate/substrate-block.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { RpcClient } from '../../rpc/create-rpc-client.ts';
import type { RegisteredTypes } from '@polkadot/types/types';
import { createRuntimeRegistry } from './create-runtime-registry.ts';
import { summariseBlock } from './summarise-block.ts';

/** twox128("System") ++ twox128("Events"): the storage key of a block's events. */
export const SYSTEM_EVENTS_KEY = '0x26aa394eea5630e07c48ae0c9558cef780d41e5e16056765bc8461851072c9d7';

interface Header {
  number: string;
  parentHash: string;
}
interface RuntimeVersion {
  specName: string;
  specVersion: number;
}

export type SubstrateSource = ReturnType<typeof createSubstrateSource>;

/**
 * A Substrate chain over its JSON-RPC (batched, failed over by the client): heads, finality, block
 * identities, and ranges of blocks with their events, decoded with the metadata of the runtime
 * each block ran (a registry per spec version, so an upgrade mid-range decodes right), made as
 * @polkadot/api makes it with the project's chain types (`network.chaintypes`, plain data: a
 * bundle's hasher function stays in the sandbox, and this registry never hashes: block hashes come
 * from the chain).
 */
export function createSubstrateSource(client: RpcClient, options: { chainTypes?: RegisteredTypes } = {}) {
  const registries = new Map<number, Promise<{ registry: TypeRegistry; decoded: Metadata; metadata: string; specName: string }>>();
  let properties: Promise<Record<string, unknown>> | undefined;
  let chainName: Promise<string> | undefined;
  const chain = () => (chainName ??= client.request<string>('system_chain'));
  const chainProperties = () => (properties ??= client.request<Record<string, unknown>>('system_properties'));

  const hashesOf = async (heights: readonly number[]): Promise<string[]> => {
    const hashes = await client.batch<string | null>(heights.map((h) => ({ method: 'chain_getBlockHash', params: [h] })));
    return hashes.map((hash, i) => {
      if (typeof hash !== 'string')
        throw new IdxError('CHAIN_BLOCK_NOT_FOUND', `the endpoint has no block ${heights[i]} (chain_getBlockHash answered null)`, { retryable: true });
      return hash;
    });
  };

  /** The registry of the runtime a block ran, made once per spec version. */
  function runtimeOf({ specName, specVersion }: RuntimeVersion, atHash: string) {
    let entry = registries.get(specVersion);
    if (entry === undefined) {
      entry = (async () => {
        const [metadata, props, chainName] = await Promise.all([client.request<string>('state_getMetadata', [atHash]), chainProperties(), chain()]);
        const made = createRuntimeRegistry({
          metadata,
          properties: props,
          chain: chainName,
          specName,
          specVersion,
          ...(options.chainTypes && { chainTypes: options.chainTypes }),
        });
        return { registry: made.registry, decoded: made.metadata, metadata, specName };
      })();
      entry.catch(() => registries.delete(specVersion));
      registries.set(specVersion, entry);
    }
    return entry;
  }

  /** The spec version at each hash: the ends of the range first; only a range with an upgrade in it asks for every block. */
  async function specVersions(hashes: readonly string[]): Promise<RuntimeVersion[]> {
    const ends = await client.batch<RuntimeVersion>([
      { method: 'state_getRuntimeVersion', params: [hashes[0]] },
      { method: 'state_getRuntimeVersion', params: [hashes[hashes.length - 1]] },
    ]);
    if (ends[0]!.specVersion === ends[1]!.specVersion) return hashes.map(() => ends[0]!);
    return client.batch<RuntimeVersion>(hashes.map((h) => ({ method: 'state_getRuntimeVersion', params: [h] })));
  }

  return {
    genesisHash: async () => (await hashesOf([0]))[0]!,
    runtimeVersion: () => client.request<RuntimeVersion & { implName: string }>('state_getRuntimeVersion'),
    chainName: chain,
    bestHeight: async () => Number((await client.request<Header>('chain_getHeader')).number),
    async finalizedHeight(): Promise<number | null> {
      const hash = await client.request<string>('chain_getFinalizedHead');
      return Number((await client.request<Header>('chain_getHeader', [hash])).number);
    },
    async getBlockRefs(heights: readonly number[]): Promise<BlockRef[]> {
      const hashes = await hashesOf(heights);
      const headers = await client.batch<Header>(hashes.map((h) => ({ method: 'chain_getHeader', params: [h] })));
      return heights.map((height, i) => ({ height, hash: hashes[i]!, parentHash: headers[i]!.parentHash, timestamp: 0 }));
    },

    /** The blocks `from`..`to` with their events, decoded for matching and kept raw for the mappings. */
    async getBlocks(from: number, to: number): Promise<SubstrateBlock[]> {
      const heights = Array.from({ length: to - from + 1 }, (_, i) => from + i);
      // with the parent of the first: a block runs the runtime its parent's state holds (at an upgrade,
      // the block that sets the new code still runs the old one), as @polkadot/api and @subql/node take it
      const withParent = await hashesOf(from === 0 ? [0, ...heights] : [from - 1, ...heights]);
      const hashes = withParent.slice(1);
      const parents = withParent.slice(0, -1);
      const [bodies, events, versions] = await Promise.all([
        client.batch<unknown>(hashes.map((h) => ({ method: 'chain_getBlock', params: [h] }))),
        client.batch<string | null>(hashes.map((h) => ({ method: 'state_getStorage', params: [SYSTEM_EVENTS_KEY, h] }))),
        specVersions(parents),
      ]);
      const out: SubstrateBlock[] = [];
      for (let i = 0; i < heights.length; i++) {
        if (bodies[i] === null)
          throw new IdxError('CHAIN_BLOCK_NOT_FOUND', `the endpoint has no block ${hashes[i]} (height ${heights[i]})`, { retryable: true });
        const parentHash = (bodies[i] as { block: { header: { parentHash: string } } }).block.header.parentHash;
        if (heights[i]! > 0 && parentHash.toLowerCase() !== parents[i]!.toLowerCase())
          throw new IdxError(
            'CHAIN_CHANGED_DURING_FETCH',
            `the endpoint's block ${heights[i]} (${hashes[i]}) has parent ${parentHash}, but its block ${heights[i]! - 1} is ${parents[i]}: the chain moved while it was read`,
            { retryable: true },
          );
        const specVersion = versions[i]!.specVersion;
        const { registry } = await runtimeOf(versions[i]!, parents[i]!);
        out.push(summariseBlock(registry, heights[i]!, hashes[i]!, bodies[i], events[i]!, specVersion));
      }
      return out;
    },

    /** The pallets' event and call names of the runtime at the chain's head. */
    async runtimeNamesAtHead(): Promise<RuntimeNames> {
      const hash = await client.request<string>('chain_getBlockHash');
      const version = await client.request<RuntimeVersion>('state_getRuntimeVersion', [hash]);
      const { registry, decoded } = await runtimeOf(version, hash);
      const expanded = expandMetadata(registry, decoded);
      const names = (sections: Record<string, object>) => Object.fromEntries(Object.entries(sections).map(([pallet, items]) => [pallet, Object.keys(items)]));
      return { events: names(expanded.events), calls: names(expanded.tx) };
    },

    /**
     * What the sandbox makes its own registry of, for a spec version seen in a fetched block: the
     * metadata (hex), the chain's properties and name, the runtime's spec name.
     */
    async runtimeInputs(specVersion: number): Promise<{ metadata: string; properties: Record<string, unknown>; chain: string; specName: string }> {
      const entry = registries.get(specVersion);
      if (entry === undefined) throw new IdxError('RPC_BAD_RESPONSE', `no block of spec version ${specVersion} has been fetched: its metadata is unknown`);
      const [{ metadata, specName }, props, chainName] = await Promise.all([entry, chainProperties(), chain()]);
      return { metadata, properties: props, chain: chainName, specName };
    },
    /** The registry the node decodes blocks of a spec version with (made when such a block was fetched). */
    async registryOf(specVersion: number): Promise<TypeRegistry> {
      const entry = registries.get(specVersion);
      if (entry === undefined) throw new IdxError('RPC_BAD_RESPONSE', `no block of spec version ${specVersion} has been fetched: its registry is not made`);
      return (await entry).registry;
    },
    properties: chainProperties,
  };
}

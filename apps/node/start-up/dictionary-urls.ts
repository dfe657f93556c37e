import { resolveDictionaries } from '../../../infra/dictionary/resolve-dictionaries.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { NodeOptions } from './node-options.ts';

/** Dictionaries to try, best first: from `--dictionary-resolver`, else `--network-dictionary`, else the manifest. */
export async function dictionaryUrls(
  options: NodeOptions,
  network: { chainId: string; dictionary?: string | string[] },
  genesisHash: string,
  log: Logger,
): Promise<string[]> {
  if (options.dictionaryResolver !== undefined) {
    try {
      const urls = await resolveDictionaries(options.dictionaryResolver, { chainId: network.chainId, genesisHash }, options.dictionaryTimeout);
      if (urls.length === 0) log.warn(`the dictionary resolver knows no dictionary for chain ${network.chainId}: fetching everything from the chain`);
      return urls;
    } catch (err) {
      log.warn(`${(err as Error).message}: fetching everything from the chain`);
      return [];
    }
  }
  if (options.networkDictionary !== undefined) return [options.networkDictionary];
  return network.dictionary === undefined ? [] : [network.dictionary].flat();
}

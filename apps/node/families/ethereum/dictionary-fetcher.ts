import { narrowPlan } from '../../../../domain/chains/ethereum/dictionary-query.ts';
import type { DictionaryClient, DictionaryMetadata } from '../../../../infra/chains/ethereum/create-dictionary-client.ts';
import type { Logger } from '../../../../infra/logging/create-logger.ts';
import type { EthereumRangeFetcher } from './local-fetcher.ts';

export interface DictionaryFetcherOptions {
  /** in order of preference: the first that serves this chain is used */
  dictionaries: readonly DictionaryClient[];
  chain: { chainId: string; genesisHash: string };
  logger: Logger;
  /** told whether the last range came through the dictionary (`/meta` usingDictionary) */
  onUse(using: boolean): void;
  /** how stale the dictionary's height may be before it is asked again */
  refreshMs?: number;
  now?: () => number;
}

/**
 * A fetcher that lets a dictionary say which heights of a range can hold a match, so the chain is
 * asked only for those (no `eth_getLogs` over empty ranges, full transactions only where one can
 * match). Whatever the dictionary cannot answer — beyond its height, another chain, an error —
 * is fetched from the chain as without it: a dictionary can make indexing faster, never wrong.
 */
export function createDictionaryFetcher(inner: EthereumRangeFetcher, options: DictionaryFetcherOptions): EthereumRangeFetcher {
  const { logger } = options;
  const now = options.now ?? Date.now;
  const refreshMs = options.refreshMs ?? 10_000;
  let chosen: { client: DictionaryClient; metadata: DictionaryMetadata; checkedAt: number } | undefined;
  let choosing: Promise<void> | undefined;
  let nextChoice = 0;
  let lastWarning = 0;

  const warn = (message: string) => {
    // A dictionary that is down would otherwise warn for every range.
    if (now() - lastWarning < 60_000) return logger.debug(message);
    lastWarning = now();
    logger.warn(`${message}; fetching from the chain meanwhile`);
  };

  const servesChain = (m: DictionaryMetadata) =>
    m.genesisHash !== undefined ? m.genesisHash.toLowerCase() === options.chain.genesisHash.toLowerCase() : m.chain === options.chain.chainId;

  async function choose(): Promise<void> {
    for (const client of options.dictionaries) {
      try {
        const metadata = await client.metadata();
        if (!servesChain(metadata)) {
          logger.warn(`dictionary ${client.name} serves another chain (genesis ${metadata.genesisHash ?? '?'}, chain ${metadata.chain ?? '?'}): not used`);
          continue;
        }
        chosen = { client, metadata, checkedAt: now() };
        logger.info(`using dictionary ${client.name}, indexed to block ${metadata.lastProcessedHeight}`);
        return;
      } catch (err) {
        warn((err as Error).message);
      }
    }
    // Ask again later: a dictionary may come up, or catch up.
    nextChoice = now() + 60_000;
  }

  /** Whether the chosen dictionary (choosing one first) covers the heights `[from, to]`. */
  async function usable(from: number, to: number): Promise<boolean> {
    if (chosen === undefined) {
      if (now() < nextChoice) return false;
      choosing ??= choose().finally(() => (choosing = undefined));
      await choosing;
      if (chosen === undefined) return false;
    }
    const c = chosen;
    if (to > c.metadata.lastProcessedHeight && now() - c.checkedAt >= refreshMs) {
      c.checkedAt = now();
      try {
        c.metadata = await c.client.metadata();
      } catch (err) {
        warn((err as Error).message);
      }
    }
    return to <= c.metadata.lastProcessedHeight && from >= (c.metadata.startHeight ?? 0);
  }

  return {
    parallelism: inner.parallelism,
    close: () => inner.close(),
    async fetch(plan, range, index) {
      if (plan.dictionary === undefined || !(await usable(range.from, range.to))) {
        options.onUse(false);
        return inner.fetch(plan, range, index);
      }
      let narrowed: typeof plan | undefined;
      try {
        const answer = await chosen!.client.heights(plan.dictionary, range);
        chosen!.metadata = answer.metadata;
        // Heights beyond the dictionary's own height would be a guess.
        if (answer.heights !== undefined && range.to <= answer.metadata.lastProcessedHeight) narrowed = narrowPlan(plan, answer.heights);
      } catch (err) {
        warn((err as Error).message);
      }
      options.onUse(narrowed !== undefined);
      return inner.fetch(narrowed ?? plan, range, index);
    },
  };
}

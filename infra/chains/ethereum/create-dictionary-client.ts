import type { HeightRange } from '../../../domain/blocks/next-range.ts';
import { dictionaryHeights, dictionaryRequest, type DictionaryEntry, type DictionaryHeights } from '../../../domain/chains/ethereum/dictionary-query.ts';
import { DictionaryError, graphqlDictionary, type DictionaryMetadata, type DictionaryOptions } from '../../dictionary/graphql-dictionary.ts';

export type { DictionaryMetadata } from '../../dictionary/graphql-dictionary.ts';

export interface DictionaryAnswer {
  /** undefined when the answer could not cover the whole range (a full page) */
  heights?: DictionaryHeights;
  metadata: DictionaryMetadata;
}

/** A SubQuery-style dictionary: a GraphQL endpoint over `evmLogs` and `evmTransactions`. */
export interface DictionaryClient {
  /** redacted, for logs */
  readonly name: string;
  metadata(): Promise<DictionaryMetadata>;
  heights(entries: readonly DictionaryEntry[], range: HeightRange): Promise<DictionaryAnswer>;
}

export interface DictionaryClientOptions extends DictionaryOptions {
  /** the dictionary's `--query-limit`; SubQuery's default is 100 */
  pageLimit?: number;
}

// Older dictionaries lack `distinct`; their error texts tell.
const NO_DISTINCT = /Unknown argument "distinct"/;

export function createDictionaryClient(options: DictionaryClientOptions): DictionaryClient {
  const dictionary = graphqlDictionary(options);
  const pageLimit = options.pageLimit ?? 100;
  let distinct = true;

  return {
    name: dictionary.name,
    metadata: dictionary.metadata,
    async heights(entries, range) {
      // With distinct heights, one more row than the range has heights would mean a cut page: it cannot happen.
      const limit = Math.min(range.to - range.from + 2, pageLimit);
      const request = dictionaryRequest(entries, range, { distinct, limit });
      let data: Record<string, unknown>;
      try {
        data = await dictionary.post(request.query, request.variables);
      } catch (err) {
        if (distinct && err instanceof DictionaryError && NO_DISTINCT.test(err.message)) {
          distinct = false;
          return this.heights(entries, range);
        }
        throw err;
      }
      const heights = dictionaryHeights(data, limit);
      return { metadata: dictionary.readMetadata(data), ...(heights !== undefined && { heights }) };
    },
  };
}

import type { Db } from '../../infra/postgres/create-db.ts';
import { metadataWithoutModel } from '../../infra/postgres/read/metadata-reads.ts';
import type { ReadStatement } from '../../infra/postgres/read/read-statement.ts';
import { execute } from '../../infra/postgres/sql.ts';
import { schemaTable } from '../../infra/postgres/read/schema-table.ts';
import { databaseUnavailableError, isConnectionLost, type DatabasePlace } from './database-unavailable.ts';
import { indexedChains } from './indexed-chains.ts';
import type { MetadataSource } from './query-context.ts';
import type { Health } from './query-service.ts';

const INDEXER_TIMEOUT_MS = 2000;

async function fetchJson(url: string): Promise<{ status: number; body: unknown }> {
  const res = await fetch(url, { signal: AbortSignal.timeout(INDEXER_TIMEOUT_MS) });
  const text = await res.text();
  let body: unknown = text;
  try {
    body = JSON.parse(text);
  } catch {
    // a plain-text body is kept as text
  }
  return { status: res.status, body };
}

/** The health the node at `indexer` reports. */
export async function indexerHealthAt(indexer: string): Promise<Health> {
  try {
    const { status, body } = await fetchJson(`${indexer}/health`);
    if (status === 200) return { healthy: true };
    const error = typeof body === 'object' && body !== null && 'error' in body ? String((body as { error: unknown }).error) : `HTTP ${status}`;
    return { healthy: false, error: `the indexer at ${indexer} is not healthy: ${error}` };
  } catch (err) {
    return { healthy: false, error: `cannot reach the indexer at ${indexer}: ${(err as Error).message}` };
  }
}

export interface StoredMetadataOptions {
  db: Db;
  schema: string;
  /** `--indexer`: the node whose live figures are newer than its last flush */
  indexer?: string;
  /** where the database is, for the error when it is gone */
  place: DatabasePlace;
}

/**
 * `_metadata`'s source: each indexed chain's metadata table (with `--multi-chain` one per chain), the
 * node's live `/meta` and health over it when `--indexer` is given. A lost connection is the
 * DATABASE_UNAVAILABLE error naming the database.
 */
export function storedMetadata({ db, schema, indexer, place }: StoredMetadataOptions): MetadataSource {
  const run = <R>(read: ReadStatement) => execute<R>(db.kysely, read.text, read.values);
  const readMetadata = async (table: string) =>
    Object.fromEntries((await run<{ key: string; value: unknown }>(metadataWithoutModel(schemaTable(schema, table)))).map((r) => [r.key, r.value]));
  const stored: MetadataSource = {
    async chains() {
      // --multi-chain: a metadata table per chain; else the schema's own
      const chains = await indexedChains((text, params) => execute(db.kysely, text, params), schema);
      const metas = chains.length > 0 ? await Promise.all(chains.map((c) => readMetadata(c.metadata))) : [await readMetadata('_metadata')];
      if (indexer !== undefined) {
        // The node's live figures are newer than its last flush (for the chain it indexes).
        const [live, health] = await Promise.all([fetchJson(`${indexer}/meta`).catch(() => undefined), indexerHealthAt(indexer)]);
        const body = live?.status === 200 && typeof live.body === 'object' && live.body !== null ? (live.body as Record<string, unknown>) : undefined;
        for (const meta of metas) {
          if (body !== undefined && (metas.length === 1 || body.chain === meta.chain)) {
            for (const [k, v] of Object.entries(body)) {
              if (
                ['lastProcessedHeight', 'lastProcessedTimestamp', 'targetHeight', 'chain', 'specName', 'genesisHash', 'indexerNodeVersion'].includes(k) &&
                v != null
              )
                meta[k] = v;
            }
          }
          meta.indexerHealthy = health.healthy;
        }
      }
      return metas;
    },
  };
  return {
    chains: () =>
      stored.chains().catch((err: unknown) => {
        if (isConnectionLost(err)) throw databaseUnavailableError(place);
        throw err;
      }),
  };
}

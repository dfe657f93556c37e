import { GraphQLError } from 'graphql';
import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import { fromStoredUnfinalized } from '../../../domain/blocks/unfinalized-blocks.ts';
import { CHAIN_METADATA_PREFIX } from '../../../domain/entities/chain-tables.ts';
import { qualified } from '../../../infra/postgres/sql.ts';
import type { QueryContext } from '../query-context.ts';
import { SqlParams } from '../sql-params.ts';
import type { BlockLookup } from './block-constraint.ts';

/** What is known of an indexed block, for `_meta { block }`. */
export interface BlockInfo {
  number: number;
  /** `0x` hex, when idx kept it */
  hash: string | null;
  parentHash: string | null;
  /** seconds since the epoch, when known */
  timestamp: number | null;
}

/** The indexed chain as the Graph dialect sees it: its head, and blocks by number or hash. */
export interface ChainView extends BlockLookup {
  block(number: number): Promise<BlockInfo>;
}

interface ChainState {
  head: number | undefined;
  /** the head block's time, seconds */
  headTimestamp: number | undefined;
  /** the blocks not yet final that `--unfinalized-blocks` keeps, with their hashes */
  recent: readonly BlockRef[];
  /** the chain's `_poi` table, qualified */
  poi: string | undefined;
}

/**
 * The chain of one request, read when a block argument or `_meta` first needs it. The head is the
 * last committed block, from the node's `_metadata` table (with `--multi-chain`, the first chain's
 * by table name, as `_metadata` without chainId answers), not from its live `/meta`, which runs
 * ahead of what is committed: a client that pins later queries to `_meta.block.number` must find
 * that block's rows. Block hashes come from the blocks not yet final (`_metadata.unfinalizedBlocks`,
 * with `--unfinalized-blocks`) and from the `_poi` rows `--proof-of-index` writes for the blocks
 * that wrote entities; the node keeps them nowhere else.
 */
export function createChainView(ctx: QueryContext, deployment: string): ChainView {
  let state: Promise<ChainState> | undefined;
  const read = () => (state ??= readState(ctx));

  const head = async () => {
    const { head } = await read();
    if (head === undefined) {
      throw new GraphQLError(`subgraph ${deployment} has not indexed a block yet; query again once idx-node has`, {
        extensions: { code: 'PROJECT_NOT_INDEXED' },
      });
    }
    return head;
  };

  return {
    deployment,
    head,
    async numberOf(hash) {
      const { recent, poi } = await read();
      const kept = recent.find((b) => b.hash.toLowerCase() === hash);
      if (kept !== undefined) return kept.height;
      if (poi === undefined || !/^0x[0-9a-f]*$/.test(hash)) return undefined;
      // `_poi` has no index on the hash: this reads the table (one row per block that wrote entities)
      const [row] = await ctx.sql<{ id: string }>(`select id::text as id from ${poi} where chain_block_hash = decode($1, 'hex') limit 1`, [hash.slice(2)]);
      return row === undefined ? undefined : Number(row.id);
    },
    async block(number) {
      const [{ headTimestamp, recent, poi }, top] = await Promise.all([read(), head()]);
      const kept = recent.find((b) => b.height === number);
      let hash = kept?.hash ?? null;
      if (hash === null && poi !== undefined) {
        const [row] = await ctx.sql<{ hash: string | null }>(`select '0x' || encode(chain_block_hash, 'hex') as hash from ${poi} where id = $1::int8`, [
          String(number),
        ]);
        hash = row?.hash ?? null;
      }
      // a kept block's timestamp of 0 means an entry stored without one
      const timestamp = kept?.timestamp || (number === top ? headTimestamp : undefined);
      return { number, hash, parentHash: kept?.parentHash ?? null, timestamp: timestamp ?? null };
    },
  };
}

const asInt = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : undefined);

async function readState(ctx: QueryContext): Promise<ChainState> {
  const params = new SqlParams();
  const tables = (
    await ctx.sql<{ name: string }>(
      `select c.relname as name from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = ${params.add(ctx.schema, 'text')} and c.relkind = 'r'
          and (c.relname in ('_metadata', '_poi') or c.relname like ${params.add(`${CHAIN_METADATA_PREFIX.replace(/_/g, '\\_')}%`, 'text')}
               or c.relname like '\\_poi\\_%')
        order by c.relname`,
      params.values,
    )
  ).map((r) => r.name);
  // --multi-chain: each chain has `_metadata_<key>` and `_poi_<key>`
  const perChain = tables.find((n) => n.startsWith(CHAIN_METADATA_PREFIX));
  const metadata = perChain ?? (tables.includes('_metadata') ? '_metadata' : undefined);
  if (metadata === undefined) return { head: undefined, headTimestamp: undefined, recent: [], poi: undefined };
  const poi = perChain === undefined ? '_poi' : `_poi_${perChain.slice(CHAIN_METADATA_PREFIX.length)}`;
  const rows = await ctx.sql<{ key: string; value: unknown }>(
    `select key, value from ${qualified(ctx.schema, metadata)} where key in ('lastProcessedHeight', 'lastProcessedBlockTimestamp', 'unfinalizedBlocks')`,
    [],
  );
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  return {
    head: asInt(value('lastProcessedHeight')),
    headTimestamp: asInt(value('lastProcessedBlockTimestamp')),
    recent: fromStoredUnfinalized(value('unfinalizedBlocks')),
    poi: tables.includes(poi) ? qualified(ctx.schema, poi) : undefined,
  };
}

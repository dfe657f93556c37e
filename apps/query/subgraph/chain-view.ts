import { GraphQLError } from 'graphql';
import type { BlockRef } from '../../../domain/blocks/chain-heads.ts';
import { fromStoredUnfinalized } from '../../../domain/blocks/unfinalized-blocks.ts';
import { schemaTable } from '../../../infra/postgres/read/schema-table.ts';
import { poiHashAt, poiHeightOfHash } from '../../../infra/postgres/read/poi-reads.ts';
import { indexedChains, metadataValues } from '../indexed-chains.ts';
import type { QueryContext } from '../query-context.ts';
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
      const probe = poiHeightOfHash(poi, hash.slice(2));
      const [row] = await ctx.sql<{ id: string }>(probe.text, probe.values);
      return row === undefined ? undefined : Number(row.id);
    },
    async block(number) {
      const [{ headTimestamp, recent, poi }, top] = await Promise.all([read(), head()]);
      const kept = recent.find((b) => b.height === number);
      let hash = kept?.hash ?? null;
      if (hash === null && poi !== undefined) {
        const probe = poiHashAt(poi, number);
        const [row] = await ctx.sql<{ hash: string | null }>(probe.text, probe.values);
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
  const sql = ctx.sql.bind(ctx);
  const [chain] = await indexedChains(sql, ctx.schema);
  if (chain === undefined) return { head: undefined, headTimestamp: undefined, recent: [], poi: undefined };
  const m = await metadataValues(sql, ctx.schema, chain.metadata, ['lastProcessedHeight', 'lastProcessedBlockTimestamp', 'unfinalizedBlocks']);
  return {
    head: asInt(m.lastProcessedHeight),
    headTimestamp: asInt(m.lastProcessedBlockTimestamp),
    recent: fromStoredUnfinalized(m.unfinalizedBlocks),
    poi: chain.poi === undefined ? undefined : schemaTable(ctx.schema, chain.poi),
  };
}

import type { SchemaComposer } from 'graphql-compose';
import { rowCountEstimates, schemaSize } from '../../infra/postgres/read/catalog-reads.ts';
import type { QueryContext } from './query-context.ts';

type Meta = Record<string, unknown>;

const INT_KEYS = [
  'lastProcessedHeight',
  'targetHeight',
  'startHeight',
  'lastFinalizedVerifiedHeight',
  'lastCreatedPoiHeight',
  'latestSyncedPoiHeight',
] as const;
const STRING_KEYS = ['chain', 'specName', 'genesisHash', 'indexerNodeVersion', 'evmChainId'] as const;

const asInt = (v: unknown) => (typeof v === 'number' ? v : typeof v === 'string' && /^\d+$/.test(v) ? Number(v) : null);
const asString = (v: unknown) => (v === undefined || v === null ? null : typeof v === 'string' ? v : JSON.stringify(v));

/**
 * `_metadata(chainId)` and `_metadatas` in the shape of SubQuery's `_Metadata`: the node's
 * `_metadata` rows, with `queryNodeVersion`, row estimates and the schema's size added.
 */
export function metadataFields(sc: SchemaComposer<QueryContext>, schema: string, version: string): void {
  sc.createObjectTC({ name: 'TableEstimate', fields: { table: 'String', estimate: 'Int' } });
  const fields: Record<string, unknown> = {};
  for (const k of INT_KEYS) fields[k] = { type: 'Int', resolve: (m: Meta) => asInt(m[k]) };
  for (const k of STRING_KEYS) fields[k] = { type: 'String', resolve: (m: Meta) => asString(m[k]) };
  Object.assign(fields, {
    // the node keeps milliseconds since the epoch (DECISIONS.md "/meta units")
    lastProcessedTimestamp: { type: 'Date', resolve: (m: Meta) => (typeof m.lastProcessedTimestamp === 'number' ? m.lastProcessedTimestamp : null) },
    indexerHealthy: { type: 'Boolean', resolve: (m: Meta) => (typeof m.indexerHealthy === 'boolean' ? m.indexerHealthy : null) },
    historicalStateEnabled: { type: 'Boolean', resolve: (m: Meta) => (typeof m.historicalStateEnabled === 'boolean' ? m.historicalStateEnabled : null) },
    queryNodeVersion: { type: 'String', resolve: () => version },
    dynamicDatasources: { type: 'JSON', resolve: (m: Meta) => m.dynamicDatasources ?? null },
    deployments: { type: 'JSON', resolve: (m: Meta) => m.deployments ?? null },
    unfinalizedBlocks: { type: 'String', resolve: (m: Meta) => asString(m.unfinalizedBlocks) },
    rowCountEstimate: {
      type: '[TableEstimate]',
      resolve: async (_m: Meta, _a: unknown, ctx: QueryContext) => {
        const { text, values } = rowCountEstimates(schema);
        const rows = await ctx.sql<{ table: string; estimate: number }>(text, values);
        return rows.map((r) => ({ table: r.table, estimate: Number(r.estimate) }));
      },
    },
    dbSize: {
      type: 'BigFloat',
      resolve: async (_m: Meta, _a: unknown, ctx: QueryContext) => {
        const { text, values } = schemaSize(schema);
        const [row] = await ctx.sql<{ size: string }>(text, values);
        return row?.size ?? '0';
      },
    },
  });
  sc.createObjectTC({ name: '_Metadata', fields: fields as never });
  sc.createObjectTC({ name: '_Metadatas', fields: { totalCount: 'Int!', nodes: '[_Metadata]!' } });
  sc.Query.addFields({
    _metadata: {
      type: '_Metadata',
      args: { chainId: 'String' },
      // without chainId: the only chain, or with --multi-chain the first by table name
      resolve: async (_s: unknown, args: { chainId?: string | null }, ctx: QueryContext) => {
        const metas = await ctx.metadata.chains();
        return (args.chainId == null ? metas[0] : metas.find((m) => m.chain === args.chainId)) ?? null;
      },
    },
    _metadatas: {
      type: '_Metadatas!',
      args: { after: 'Cursor', before: 'Cursor' },
      resolve: async (_s: unknown, _a: unknown, ctx: QueryContext) => {
        const metas = await ctx.metadata.chains();
        return { totalCount: metas.length, nodes: metas };
      },
    },
  });
}

import type { SchemaComposer } from 'graphql-compose';
import { blockConstraint, constrainedBlock, type BlockHeightInput } from './block-constraint.ts';
import type { BlockInfo } from './chain-view.ts';
import type { SubgraphContext } from './subgraph-context.ts';

/**
 * graph-node's `_meta(block:)`: the block the query would answer at, the deployment and whether
 * indexing met errors. idx has no deployment hash, so `deployment` is the served schema's name
 * (`-n`); idx-node stops at a failing handler instead of skipping blocks, so `hasIndexingErrors`
 * is always false.
 */
export function metaField(sc: SchemaComposer<SubgraphContext>): void {
  sc.createObjectTC({
    name: '_Block_',
    fields: {
      hash: { type: 'Bytes', description: 'The hash of the block, when idx kept it' },
      number: { type: 'Int!', description: 'The block number' },
      timestamp: { type: 'Int', description: 'Seconds since the epoch, when known' },
      parentHash: { type: 'Bytes', description: 'The hash of the parent block, when idx kept it' },
    },
  });
  sc.createObjectTC({
    name: '_Meta_',
    description: 'The type for the top-level _meta field',
    fields: {
      block: { type: '_Block_!', description: 'The block the query answers at' },
      deployment: { type: 'String!', description: 'The served project: its database schema name' },
      hasIndexingErrors: { type: 'Boolean!', description: 'Always false: idx-node stops at a failing handler rather than skipping blocks' },
    },
  });
  sc.Query.addFields({
    _meta: {
      type: '_Meta_',
      description: 'Access to subgraph metadata',
      args: { block: 'Block_height' },
      resolve: async (_src: unknown, args: { block?: BlockHeightInput | null }, ctx: SubgraphContext) => {
        const { chain } = ctx;
        const n = (await constrainedBlock(blockConstraint(args.block), chain)) ?? (await chain.head());
        const block: BlockInfo = await chain.block(n);
        return { block, deployment: chain.deployment, hasIndexingErrors: false };
      },
    },
  });
}

import type { SchemaComposer } from 'graphql-compose';
import { ConnectionSource, type ConnectionArgs } from './connection-source.ts';
import type { EntityTable } from './entity-tables.ts';
import { loadById, parseBlockHeight } from './entity-rows.ts';
import { connectionArgs } from './graphql-type-names.ts';
import { isNode, type LoadNode } from './node-interface.ts';
import type { QueryContext } from './query-context.ts';

/** An entity's root query fields: by nodeId (a Node's), by id, the connection, and the full-text search when it has one. */
export function defineEntityQueryFields(sc: SchemaComposer<QueryContext>, t: EntityTable, loadNode: LoadNode): void {
  if (isNode(t))
    sc.Query.addFields({
      [`${t.names.single}ByNodeId`]: {
        type: t.names.type,
        args: { nodeId: { type: 'ID!', description: `The nodeId of a ${t.names.type}.` } },
        resolve: (_src: unknown, args: { nodeId: string }, ctx: QueryContext) => loadNode(ctx, args.nodeId, t),
      },
    });
  sc.Query.addFields({
    [t.names.single]: {
      type: t.names.type,
      args: { id: 'String!', blockHeight: { type: 'String', description: 'Answer as of this block height.' } },
      resolve: (_src: unknown, args: { id: string; blockHeight?: string | null }, ctx: QueryContext) =>
        loadById(ctx, t, args.id, parseBlockHeight(t, args.blockHeight)).then((r) => r ?? null),
    },
    [t.names.connection]: {
      type: t.names.connectionType,
      args: { ...connectionArgs(t), blockHeight: { type: 'String', description: 'Answer as of this block height, nested relations included.' } },
      resolve: (_src: unknown, args: ConnectionArgs & { blockHeight?: string | null }, ctx: QueryContext) => {
        const { blockHeight, ...rest } = args;
        return new ConnectionSource(ctx, t, rest, parseBlockHeight(t, blockHeight));
      },
    },
  });
  const ft = t.entity.fullText;
  if (ft !== undefined && !sc.Query.hasField(t.names.search)) {
    const { orderBy, ...args } = connectionArgs(t);
    sc.Query.addFields({
      [t.names.search]: {
        type: t.names.connectionType,
        description: `${t.names.type} rows whose ${ft.fields.join(', ')} match the search (@fullText, ${ft.language}), best match first.`,
        args: {
          search: {
            type: 'String!',
            description: 'Words that must all occur; `or` between words, `-word` to exclude, `word*` for a prefix, `"two words"` for a phrase.',
          },
          ...args,
          orderBy: { type: orderBy.type, description: 'The order of the rows; by rank (best first) when not given.' },
          blockHeight: { type: 'String', description: 'Search the rows as of this block height, nested relations included.' },
        },
        resolve: (_src: unknown, args: ConnectionArgs & { search: string; blockHeight?: string | null }, ctx: QueryContext) => {
          const { blockHeight, search, ...rest } = args;
          return new ConnectionSource(ctx, t, rest, parseBlockHeight(t, blockHeight), undefined, { text: search });
        },
      },
    });
  }
}

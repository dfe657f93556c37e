import { ConnectionSource, type ConnectionArgs } from '../../connection-source.ts';
import { loadById, parseBlockHeight } from '../../entity-rows.ts';
import { connectionFields, defineEdge, defineEntityFilter, entityObjectFields, orderByValues } from '../../entity-types.ts';
import { connectionArgs } from '../../graphql-type-names.ts';
import type { QueryContext } from '../../query-context.ts';
import type { FieldMap, SchemaExtension } from '../schema-extension.ts';

/**
 * Each entity as SubQuery's PostGraphile shows it: its object type (columns, relations both ways),
 * filter, orderBy and distinct enums, edge and connection (nodes, edges, pageInfo, totalCount), and
 * the root fields by id and the connection, each at an optional `blockHeight`.
 */
export const entityConnections: SchemaExtension = {
  name: 'connections',
  entityFields: ({ tables }, t) => entityObjectFields(tables, t),
  entityTypes({ composer: sc, tables }, t) {
    defineEntityFilter(sc, tables, t);
    sc.createEnumTC({ name: t.names.orderBy, values: orderByValues(t, tables) });
    sc.createEnumTC({ name: t.names.distinct, values: Object.fromEntries(t.columns.map((c) => [c.upper, {}])) });
    defineEdge(sc, t);
  },
  connectionFields: (_build, t) => connectionFields(t),
  queryFields: (_build, t): FieldMap => ({
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
  }),
};

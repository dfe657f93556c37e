import { nodeIdOf } from '../../node-ids.ts';
import { defineNodeInterface, isNode, loadNodeOf } from '../../node-interface.ts';
import type { EntityRow } from '../../entity-rows.ts';
import type { QueryContext } from '../../query-context.ts';
import type { FieldMap, SchemaExtension } from '../schema-extension.ts';

/** Relay's global ids: the Node interface, `query` and `node(nodeId)`, each entity's `nodeId` and `<entity>ByNodeId`. */
export const relayIds: SchemaExtension = {
  name: 'Relay ids',
  prepare({ composer, tables }) {
    defineNodeInterface(composer, tables);
  },
  entityFields(_build, t): FieldMap | undefined {
    if (!isNode(t)) return undefined;
    return {
      nodeId: { type: 'ID!', description: 'A globally unique identifier, for `node(nodeId)`.', resolve: (row: EntityRow) => nodeIdOf(t, row.id as string) },
    };
  },
  entityTypes({ composer }, t) {
    if (isNode(t)) composer.getOTC(t.names.type).addInterfaces(['Node']);
  },
  queryFields({ tables }, t): FieldMap | undefined {
    if (!isNode(t)) return undefined;
    const loadNode = loadNodeOf(tables);
    return {
      [`${t.names.single}ByNodeId`]: {
        type: t.names.type,
        args: { nodeId: { type: 'ID!', description: `The nodeId of a ${t.names.type}.` } },
        resolve: (_src: unknown, args: { nodeId: string }, ctx: QueryContext) => loadNode(ctx, args.nodeId, t),
      },
    };
  },
};

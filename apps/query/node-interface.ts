import type { SchemaComposer } from 'graphql-compose';
import type { EntityTable } from './entity-tables.ts';
import { loadById, type EntityRow } from './entity-rows.ts';
import { nodeAlias, parseNodeId } from './node-ids.ts';
import type { QueryContext } from './query-context.ts';

/** Which entity type a row fetched by `node(nodeId)` is, for the Node interface. */
const NODE_TYPE = Symbol('idx.nodeType');
type NodeRow = EntityRow & { [NODE_TYPE]?: string };

/** The row a nodeId names (its latest version), of `only` when given; null when there is none. */
export type LoadNode = (ctx: QueryContext, nodeId: string, only?: EntityTable) => Promise<EntityRow | null>;

/** An entity with a field of its own called nodeId keeps it, and is no Node. */
export function isNode(t: EntityTable): boolean {
  return !t.byName.has('nodeId') && !t.forward.some((r) => r.name === 'nodeId') && !t.backward.some((r) => r.name === 'nodeId');
}

const loaders = new WeakMap<ReadonlyMap<string, EntityTable>, LoadNode>();

/** The loader of `node(nodeId)` over `tables`, one per set of tables (a schema build). */
export function loadNodeOf(tables: ReadonlyMap<string, EntityTable>): LoadNode {
  let loadNode = loaders.get(tables);
  if (loadNode === undefined) loaders.set(tables, (loadNode = nodeLoader(tables)));
  return loadNode;
}

function nodeLoader(tables: ReadonlyMap<string, EntityTable>): LoadNode {
  const byAlias = new Map([...tables.values()].filter(isNode).map((t) => [nodeAlias(t), t]));
  const loadNode = async (ctx: QueryContext, nodeId: string, only?: EntityTable): Promise<NodeRow | null> => {
    const parsed = parseNodeId(nodeId);
    if (parsed === undefined) return null;
    const { alias, id } = parsed;
    const t = byAlias.get(alias);
    if (t === undefined || (only !== undefined && t !== only)) return null;
    const row = await loadById(ctx, t, id, undefined);
    return row === undefined ? null : Object.assign(row, { [NODE_TYPE]: t.names.type });
  };
  return loadNode;
}

/** Relay's Node interface and the root `query` and `node(nodeId)` fields. */
export function defineNodeInterface(sc: SchemaComposer<QueryContext>, tables: ReadonlyMap<string, EntityTable>): void {
  sc.createInterfaceTC<EntityRow>({
    name: 'Node',
    description: 'An object with a globally unique ID (Relay).',
    fields: { nodeId: { type: 'ID!', description: 'A globally unique identifier, for `node(nodeId)`.' } },
    resolveType: (row: NodeRow) => row[NODE_TYPE],
  });
  const loadNode = loadNodeOf(tables);
  sc.Query.addFields({
    query: { type: 'Query!', description: 'The root query type, again (Relay).', resolve: () => ({}) },
    node: {
      type: 'Node',
      args: { nodeId: { type: 'ID!', description: 'The globally unique id of an object.' } },
      description: 'Any entity by its nodeId (its latest version).',
      resolve: (_src: unknown, args: { nodeId: string }, ctx: QueryContext) => loadNode(ctx, args.nodeId),
    },
  });
}

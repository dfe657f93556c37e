import type { GraphQLSchema } from 'graphql';
import { GraphQLJSON, SchemaComposer, type ObjectTypeComposerFieldConfigMapDefinition } from 'graphql-compose';
import { IdxError } from '../../../domain/errors.ts';
import type { StoredProject } from '../../../infra/postgres/read-stored-project.ts';
import { ConnectionSource } from '../connection-source.ts';
import { loadById, ROW_HEIGHT, type EntityRow } from '../entity-rows.ts';
import type { EntityTable } from '../entity-tables.ts';
import { orderable } from '../order-keys.ts';
import { relatedOrders } from '../related-orders.ts';
import { heightFor, type BlockHeightInput } from './block-constraint.ts';
import { connectionArgs, type CollectionArgs } from './collection-args.ts';
import { graphNames } from './graph-names.ts';
import { GraphQLGraphBigDecimal, GraphQLGraphBigInt, GraphQLGraphBytes } from './graph-scalars.ts';
import { graphFieldType, graphList, graphValueType, isoText } from './graph-types.ts';
import { metaField } from './meta-field.ts';
import { GRAPH_DEFAULT_FIRST, type SubgraphContext } from './subgraph-context.ts';
import { wherePlans } from './where-plan.ts';

export interface SubgraphSchemaInput {
  project: StoredProject;
  /** the SubQuery dialect's view of the same tables (entityTables), so both read alike */
  tables: ReadonlyMap<string, EntityTable>;
}

/** Type names graph-node's API schema takes for itself. */
const RESERVED = ['Query', 'OrderDirection', 'Block_height', '_Meta_', '_Block_', '_SubgraphErrorPolicy_', 'BigInt', 'BigDecimal', 'Bytes', 'JSON'];

/**
 * The GraphQL schema of the Graph dialect over the served tables, in graph-node's shape
 * (docs/graphql.md, The Graph's query dialect): per entity `transfer(id, block)` and
 * `transfers(skip, first, orderBy, orderDirection, where, block)`, `Transfer_filter`,
 * `Transfer_orderBy`, `_meta`. Resolvers read through the SubQuery dialect's machinery
 * (ConnectionSource, loadById, compile-filter via translate-where).
 */
export function buildSubgraphSchema(input: SubgraphSchemaInput): GraphQLSchema {
  const { project, tables } = input;
  refuseNameClashes(project, tables);
  const sc = new SchemaComposer<SubgraphContext>();
  defineSharedTypes(sc, project);
  const plans = wherePlans(tables);
  const page: Page = (ctx, t, args, height, parent) =>
    new ConnectionSource(ctx, t, connectionArgs(plans, t.entity.name, args, ctx.settings.queryLimit), height, parent).page().then((p) => p.rows);

  for (const t of tables.values()) {
    const names = graphNames(t.entity.name);
    sc.createObjectTC({ name: names.type, description: t.entity.description, fields: entityFields(tables, t, page) });
    const plan = plans.get(t.entity.name)!;
    const where: Record<string, { type: string }> = {};
    for (const f of plan.fields.values()) where[f.name] = { type: f.type };
    where.and = { type: `[${names.filter}]` };
    where.or = { type: `[${names.filter}]` };
    sc.createInputTC({ name: names.filter, fields: where });
    sc.createEnumTC({ name: names.orderBy, values: orderByValues(t, tables) });
    sc.Query.addFields({
      [names.single]: {
        type: names.type,
        args: { id: 'ID!', ...QUERY_ARGS },
        resolve: async (_src: unknown, args: { id: string; block?: BlockHeightInput | null }, ctx: SubgraphContext) =>
          (await loadById(ctx, t, args.id, await heightFor(t, args.block, ctx.chain))) ?? null,
      },
      [names.collection]: {
        type: `[${names.type}!]!`,
        args: { ...collectionArgs(t), ...QUERY_ARGS },
        resolve: async (_src: unknown, args: CollectionArgs & { block?: BlockHeightInput | null }, ctx: SubgraphContext) =>
          page(ctx, t, args, await heightFor(t, args.block, ctx.chain)),
      },
    });
  }
  metaField(sc);
  return sc.buildSchema();
}

/** A page of a collection's rows, at `height`, of `parent`'s related rows when given. */
type Page = (
  ctx: SubgraphContext,
  t: EntityTable,
  args: CollectionArgs,
  height: bigint | undefined,
  parent?: { column: string; id: string },
) => Promise<EntityRow[]>;

/** The scalars, enums and inputs of graph-node's API schema, and the model's enums. */
function defineSharedTypes(sc: SchemaComposer<SubgraphContext>, project: StoredProject): void {
  for (const scalar of [GraphQLGraphBigInt, GraphQLGraphBigDecimal, GraphQLGraphBytes, GraphQLJSON]) sc.add(scalar);
  sc.createEnumTC({ name: 'OrderDirection', description: 'Defines the order direction, either ascending or descending', values: { asc: {}, desc: {} } });
  sc.createEnumTC({
    name: '_SubgraphErrorPolicy_',
    values: {
      allow: { description: 'Data will be returned even if the subgraph has indexing errors' },
      deny: { description: 'If the subgraph has indexing errors, data will be omitted. The default.' },
    },
  });
  sc.createInputTC({
    name: 'Block_height',
    description: 'The block at which the query should be executed.',
    fields: {
      hash: { type: 'Bytes', description: 'Value containing a block hash' },
      number: { type: 'Int', description: 'Value containing a block number' },
      number_gte: { type: 'Int', description: 'The latest block, provided the subgraph has indexed at least this block number' },
    },
  });
  for (const e of project.model.enums) sc.createEnumTC({ name: e.name, values: Object.fromEntries(e.values.map((v) => [v, { value: v }])) });
}

/** The arguments of a collection, root or nested. */
function collectionArgs(t: EntityTable) {
  const names = graphNames(t.entity.name);
  return {
    skip: { type: 'Int', defaultValue: 0 },
    first: { type: 'Int', defaultValue: GRAPH_DEFAULT_FIRST },
    orderBy: { type: names.orderBy },
    orderDirection: { type: 'OrderDirection' },
    where: { type: names.filter },
  };
}

/** The arguments every root field takes besides its own. */
const QUERY_ARGS = {
  block: {
    type: 'Block_height',
    description:
      'The block at which the query should be executed: `{ hash }`, `{ number }`, or `{ number_gte }` (the latest block, once the subgraph has indexed that far). Defaults to the latest block.',
  },
  subgraphError: {
    type: '_SubgraphErrorPolicy_!',
    defaultValue: 'deny',
    description: 'Accepted for graph-node clients; idx-node skips no block, so there is no error to allow.',
  },
};

/** An entity's object fields: columns, relations both ways, in schema.graphql's order. */
function entityFields(
  tables: ReadonlyMap<string, EntityTable>,
  t: EntityTable,
  page: Page,
): ObjectTypeComposerFieldConfigMapDefinition<EntityRow, SubgraphContext> {
  const fields: ObjectTypeComposerFieldConfigMapDefinition<EntityRow, SubgraphContext> = {};
  for (const c of t.columns) {
    if (c.references !== undefined) continue;
    const date = graphValueType(c).date;
    fields[c.name] = {
      type: graphFieldType(c),
      resolve: date
        ? (row: EntityRow) => (graphList(c) ? ((row[c.column] as unknown[] | null)?.map(isoText) ?? null) : isoText(row[c.column]))
        : (row: EntityRow) => row[c.column],
    };
  }
  for (const r of t.forward) {
    const other = tables.get(r.entity)!;
    fields[r.name] = {
      type: r.nullable ? r.entity : `${r.entity}!`,
      resolve: (row: EntityRow, _args: unknown, ctx: SubgraphContext) => {
        const id = row[r.column];
        return typeof id === 'string' ? loadById(ctx, other, id, row[ROW_HEIGHT]).then((x) => x ?? null) : null;
      },
    };
  }
  for (const r of t.backward) {
    const other = tables.get(r.entity);
    if (other === undefined) continue;
    // related rows are read at the parent's block
    fields[r.name] = r.many
      ? {
          type: `[${r.entity}!]!`,
          args: collectionArgs(other),
          resolve: (row: EntityRow, args: CollectionArgs, ctx: SubgraphContext) =>
            page(ctx, other, args, row[ROW_HEIGHT], { column: r.column, id: row.id as string }),
        }
      : {
          type: r.entity,
          resolve: (row: EntityRow, _args: unknown, ctx: SubgraphContext) =>
            page(ctx, other, { first: 1 }, row[ROW_HEIGHT], { column: r.column, id: row.id as string }).then((rows) => rows[0] ?? null),
        };
  }
  // in schema.graphql's order, as graph-node shows them
  const order = new Map(t.entity.fields.map((f, i) => [f.name, i]));
  return Object.fromEntries(Object.entries(fields).sort(([a], [b]) => (order.get(a) ?? -1) - (order.get(b) ?? -1)));
}

/** The values of an entity's orderBy enum: its columns (a relation by its own name) and graph-node's child orders. */
function orderByValues(t: EntityTable, tables: ReadonlyMap<string, EntityTable>): Record<string, { value: string }> {
  // values carry the SubQuery dialect's orderBy stem, which collection-args.ts completes with the direction
  const orderBy: Record<string, { value: string }> = {};
  for (const c of t.columns) {
    if (!orderable(c) || c.kind === 'json') continue; // graph-node orders no list or JSON
    const relation = t.forward.find((r) => r.column === c.column);
    orderBy[relation?.name ?? c.name] = { value: c.upper };
  }
  for (const [name, stem] of childOrders(t, tables)) orderBy[name] = { value: stem };
  return orderBy;
}

/**
 * graph-node's child orders, `from__balance`: a value of the row a relation points to, read at the
 * page's block. They are the SubQuery dialect's related orders (related-orders.ts,
 * `ACCOUNT_BY_FROM_ID__BALANCE`), found by the relation's column and the child's column; as in
 * graph-node, a child's own relations and lists do not order.
 */
function childOrders(t: EntityTable, tables: ReadonlyMap<string, EntityTable>): Map<string, string> {
  const stems = [...relatedOrders(t, tables).keys()];
  const out = new Map<string, string>();
  for (const r of t.forward) {
    const by = `_BY_${r.column.replace(/[^A-Za-z0-9]+/g, '_').toUpperCase()}__`;
    for (const c of tables.get(r.entity)!.columns) {
      if (!orderable(c) || c.kind === 'json' || c.references !== undefined) continue;
      const stem = stems.find((s) => s.endsWith(`${by}${c.upper}`));
      if (stem !== undefined) out.set(`${r.name}__${c.name}`, stem);
    }
  }
  return out;
}

/** graph-node would refuse such a schema; say which names clash rather than serve half of it. */
function refuseNameClashes(project: StoredProject, tables: ReadonlyMap<string, EntityTable>): void {
  const types = new Map<string, string>(RESERVED.map((n) => [n, "the Graph dialect's own type"]));
  const fields = new Map<string, string>([['_meta', 'the _meta field']]);
  const claim = (map: Map<string, string>, name: string, what: string) => {
    const taken = map.get(name);
    if (taken !== undefined) {
      throw new IdxError('OPTION_NOT_AVAILABLE', `--subgraph: the name ${name} of ${what} is also that of ${taken}; rename one of them in schema.graphql`);
    }
    map.set(name, what);
  };
  for (const e of project.model.enums) claim(types, e.name, `enum ${e.name}`);
  for (const t of tables.values()) {
    const names = graphNames(t.entity.name);
    claim(types, names.type, `entity ${t.entity.name}`);
    claim(types, names.filter, `${t.entity.name}'s filter`);
    claim(types, names.orderBy, `${t.entity.name}'s orderBy`);
    claim(fields, names.single, `${t.entity.name}'s single-row field`);
    claim(fields, names.collection, `${t.entity.name}'s collection field`);
  }
}

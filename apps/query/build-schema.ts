import type { GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { GraphQLJSON, SchemaComposer, type ObjectTypeComposerFieldConfigMapDefinition } from 'graphql-compose';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';
import { quoteIdent } from '../../infra/postgres/sql.ts';
import {
  AGGREGATE_FNS,
  aggregateColumns,
  groupByValues,
  aggregateType,
  HAVING_FILTER,
  havingColumns,
  resolveAggregates,
  resolveGroupedAggregates,
  UNSAFE_FNS,
  unsafeError,
  type AggregateResult,
} from './aggregates.ts';
import { changesFields } from './changes-fields.ts';
import { ConnectionSource, type ConnectionArgs } from './connection-source.ts';
import { entityTables, selectList, toManyFilterName, type EntityTable, type QueryColumn, type ValueKind } from './entity-tables.ts';
import { loadById, parseBlockHeight, ROW_HEIGHT, withHeight, type EntityRow } from './entity-rows.ts';
import { operatorsFor, type OperandShape } from './filter-operators.ts';
import { orderable } from './order-keys.ts';
import { relatedOrders } from './related-orders.ts';
import { metadataFields } from './metadata-fields.ts';
import { nodeAlias, nodeIdOf, parseNodeId } from './node-ids.ts';
import type { QueryContext, QuerySettings } from './query-context.ts';
import { GraphQLBigFloat, GraphQLBigIntString, GraphQLCursor, GraphQLDatetime } from './scalars.ts';
import { SqlParams, versionCondition } from './sql-params.ts';

/** Adds fields or types before the schema is built (subscriptions, for one). */
export type SchemaExtension = (composer: SchemaComposer<QueryContext>, tables: ReadonlyMap<string, EntityTable>) => void;

export interface BuildSchemaInput {
  project: StoredProject;
  settings: QuerySettings;
  /** this service's version, for `_metadata.queryNodeVersion` */
  version: string;
  extensions?: readonly SchemaExtension[];
}

export interface BuiltSchema {
  schema: GraphQLSchema;
  composer: SchemaComposer<QueryContext>;
  tables: ReadonlyMap<string, EntityTable>;
  project: StoredProject;
}

const KIND_TYPE: Record<Exclude<ValueKind, 'enum'>, string> = {
  string: 'String',
  bytes: 'String',
  int: 'Int',
  float: 'Float',
  bigfloat: 'BigFloat',
  boolean: 'Boolean',
  datetime: 'Datetime',
  json: 'JSON',
};

/** Which entity type a row fetched by `node(nodeId)` is, for the Node interface. */
const NODE_TYPE = Symbol('idx.nodeType');
type NodeRow = EntityRow & { [NODE_TYPE]?: string };

const CONNECTION_ARGS = (t: EntityTable) => ({
  first: { type: 'Int', description: `Only read the first n rows (at most --query-limit).` },
  last: { type: 'Int', description: 'Only read the last n rows (at most --query-limit).' },
  offset: { type: 'Int', description: 'Skip the first n rows.' },
  before: { type: 'Cursor', description: 'Read rows before this cursor.' },
  after: { type: 'Cursor', description: 'Read rows after this cursor.' },
  orderBy: { type: `[${t.names.orderBy}!]`, defaultValue: ['PRIMARY_KEY_ASC'], description: 'The order of the rows.' },
  orderByNull: { type: 'NullOrder', description: 'Where rows with NULL in an ordering column go.' },
  filter: { type: t.names.filter, description: 'Only rows that match.' },
  distinct: { type: `[${t.names.distinct}]`, description: 'One row per distinct value of these columns.' },
});

/**
 * The GraphQL schema of a stored project, in the shape SubQuery's PostGraphile-based query service
 * gives it (docs/graphql.md). `extensions` run on the composer before it is built.
 */
export function buildSchema(input: BuildSchemaInput): BuiltSchema {
  const { composer, tables } = createSchemaComposer(input);
  for (const extend of input.extensions ?? []) extend(composer, tables);
  return { schema: composer.buildSchema(), composer, tables, project: input.project };
}

/** The composer with every type and query field, not built yet. */
export function createSchemaComposer(input: BuildSchemaInput): { composer: SchemaComposer<QueryContext>; tables: ReadonlyMap<string, EntityTable> } {
  const { project, settings } = input;
  const sc = new SchemaComposer<QueryContext>();
  const tables = entityTables(project);
  for (const scalar of [GraphQLBigFloat, GraphQLBigIntString, GraphQLDatetime, GraphQLCursor]) sc.add(scalar);
  sc.add(GraphQLJSON);
  sc.createEnumTC({ name: 'NullOrder', values: { NULLS_FIRST: {}, NULLS_LAST: {} } });
  sc.createObjectTC({
    name: 'PageInfo',
    fields: { hasNextPage: 'Boolean!', hasPreviousPage: 'Boolean!', startCursor: 'Cursor', endCursor: 'Cursor' },
  });
  for (const e of project.model.enums) sc.createEnumTC({ name: e.name, values: Object.fromEntries(e.values.map((v) => [v, { value: v }])) });

  const typeOf = (c: QueryColumn) => (c.kind === 'enum' ? c.enumName! : KIND_TYPE[c.kind as Exclude<ValueKind, 'enum'>]);
  const filterTypeOf = (c: QueryColumn): string => {
    const base = typeOf(c);
    const name = `${base}${c.list ? 'List' : ''}Filter`;
    if (!sc.has(name)) {
      const operand = (shape: OperandShape) =>
        ({
          value: c.list ? `[${base}]` : base,
          values: `[${base}${c.list ? '' : '!'}]`,
          boolean: 'Boolean',
          string: 'String',
          strings: '[String!]',
          json: 'JSON',
          item: base,
        })[shape];
      sc.createInputTC({
        name,
        description: `A filter on ${base}${c.list ? ' lists' : ''}; all given operators must hold.`,
        fields: Object.fromEntries(operatorsFor(c).map((op) => [op.name, { type: operand(op.shape) }])),
      });
    }
    return name;
  };

  sc.createInterfaceTC<EntityRow>({
    name: 'Node',
    description: 'An object with a globally unique ID (Relay).',
    fields: { nodeId: { type: 'ID!', description: 'A globally unique identifier, for `node(nodeId)`.' } },
    resolveType: (row: NodeRow) => row[NODE_TYPE],
  });
  // an entity with a field of its own called nodeId keeps it, and is no Node
  const isNode = (t: EntityTable) => !t.byName.has('nodeId') && !t.forward.some((r) => r.name === 'nodeId') && !t.backward.some((r) => r.name === 'nodeId');
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
  sc.Query.addFields({
    query: { type: 'Query!', description: 'The root query type, again (Relay).', resolve: () => ({}) },
    node: {
      type: 'Node',
      args: { nodeId: { type: 'ID!', description: 'The globally unique id of an object.' } },
      description: 'Any entity by its nodeId (its latest version).',
      resolve: (_src: unknown, args: { nodeId: string }, ctx: QueryContext) => loadNode(ctx, args.nodeId),
    },
  });

  for (const t of tables.values()) defineEntity(t);
  for (const t of tables.values()) {
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
        args: { ...CONNECTION_ARGS(t), blockHeight: { type: 'String', description: 'Answer as of this block height, nested relations included.' } },
        resolve: (_src: unknown, args: ConnectionArgs & { blockHeight?: string | null }, ctx: QueryContext) => {
          const { blockHeight, ...rest } = args;
          return new ConnectionSource(ctx, t, rest, parseBlockHeight(t, blockHeight));
        },
      },
    });
    const ft = t.entity.fullText;
    if (ft !== undefined && !sc.Query.hasField(t.names.search)) {
      const { orderBy, ...args } = CONNECTION_ARGS(t);
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
  changesFields(sc, tables);
  metadataFields(sc, project.schema, input.version);
  return { composer: sc, tables };

  function defineEntity(t: EntityTable): void {
    const { names } = t;
    // the entity's object type: columns, then relations both ways
    const node = isNode(t);
    const fields: ObjectTypeComposerFieldConfigMapDefinition<EntityRow, QueryContext> = node
      ? {
          nodeId: { type: 'ID!', description: 'A globally unique identifier, for `node(nodeId)`.', resolve: (row: EntityRow) => nodeIdOf(t, row.id as string) },
        }
      : {};
    for (const c of t.columns) {
      const type = c.list ? `[${typeOf(c)}${c.field?.itemNullable === false ? '!' : ''}]` : typeOf(c);
      fields[c.name] = { type: c.nullable ? type : `${type}!`, resolve: (row: EntityRow) => row[c.column] };
    }
    for (const r of t.forward) {
      const other = tables.get(r.entity)!;
      fields[r.name] = {
        type: other.names.type,
        resolve: (row: EntityRow, _args: unknown, ctx: QueryContext) => {
          const id = row[r.column];
          return typeof id === 'string' ? loadById(ctx, other, id, row[ROW_HEIGHT]).then((x) => x ?? null) : null;
        },
      };
    }
    for (const r of t.backward) {
      const other = tables.get(r.entity)!;
      if (r.many) {
        fields[r.name] = {
          type: `${other.names.connectionType}!`,
          args: CONNECTION_ARGS(other),
          resolve: (row: EntityRow, args: ConnectionArgs, ctx: QueryContext) =>
            new ConnectionSource(ctx, other, args, row[ROW_HEIGHT], { column: r.column, id: row.id as string }),
        };
      } else {
        fields[r.name] = {
          type: other.names.type,
          resolve: (row: EntityRow, _args: unknown, ctx: QueryContext) => loadByForeignKey(ctx, other, r.column, row.id as string, row[ROW_HEIGHT]),
        };
      }
    }
    sc.createObjectTC({ name: names.type, description: t.entity.description, fields, interfaces: node ? ['Node'] : [] });

    // filter
    {
      const f: Record<string, { type: string; description?: string }> = {};
      for (const c of t.columns) f[c.name] = { type: filterTypeOf(c) };
      for (const r of t.forward) {
        f[r.name] = { type: tables.get(r.entity)!.names.filter, description: `Rows whose ${r.name} matches.` };
        f[`${r.name}Exists`] = { type: 'Boolean', description: `Rows whose ${r.name} exists (true) or not (false).` };
      }
      for (const r of t.backward) {
        const other = tables.get(r.entity)!;
        if (r.many) {
          const many = toManyFilterName(t, other);
          if (!sc.has(many)) {
            sc.createInputTC({
              name: many,
              description: `A filter on the ${other.names.type} rows related to a ${names.type}.`,
              fields: { every: other.names.filter, some: other.names.filter, none: other.names.filter },
            });
          }
          f[r.name] = { type: many };
          f[`${r.name}Exist`] = { type: 'Boolean', description: `Rows with at least one ${r.name} (true) or none (false).` };
        } else {
          f[r.name] = { type: other.names.filter };
          f[`${r.name}Exists`] = { type: 'Boolean' };
        }
      }
      f.and = { type: `[${names.filter}!]`, description: 'All of these must match.' };
      f.or = { type: `[${names.filter}!]`, description: 'At least one of these must match.' };
      f.not = { type: names.filter, description: 'This must not match.' };
      sc.createInputTC({ name: names.filter, description: `A filter on ${names.type}; all given fields must match.`, fields: f });
    }

    // orderBy and distinct enums
    const order: Record<string, object> = { NATURAL: {} };
    for (const c of t.columns) {
      if (!orderable(c)) continue;
      order[`${c.upper}_ASC`] = {};
      order[`${c.upper}_DESC`] = {};
    }
    order.PRIMARY_KEY_ASC = {};
    order.PRIMARY_KEY_DESC = {};
    for (const { stem } of relatedOrders(t, tables).values()) {
      order[`${stem}_ASC`] = {};
      order[`${stem}_DESC`] = {};
    }
    sc.createEnumTC({ name: names.orderBy, values: order });
    sc.createEnumTC({ name: names.distinct, values: Object.fromEntries(t.columns.map((c) => [c.upper, {}])) });

    // connection, edge, aggregates
    sc.createObjectTC({
      name: names.edgeType,
      fields: {
        cursor: 'Cursor',
        node: { type: names.type },
      },
    });
    const connectionFields: ObjectTypeComposerFieldConfigMapDefinition<ConnectionSource, QueryContext> = {
      nodes: { type: `[${names.type}]!`, resolve: (src: ConnectionSource) => src.page().then((p) => p.rows) },
      edges: {
        type: `[${names.edgeType}!]!`,
        resolve: (src: ConnectionSource) => src.page().then((p) => p.rows.map((node) => ({ cursor: src.cursor(node), node }))),
      },
      pageInfo: {
        type: 'PageInfo!',
        resolve: (src: ConnectionSource) =>
          src.page().then((p) => ({
            hasNextPage: p.hasNextPage,
            hasPreviousPage: p.hasPreviousPage,
            startCursor: p.rows.length > 0 ? src.cursor(p.rows[0]!) : null,
            endCursor: p.rows.length > 0 ? src.cursor(p.rows[p.rows.length - 1]!) : null,
          })),
      },
      totalCount: {
        type: 'Int!',
        resolve: (src: ConnectionSource) => src.totalCount(),
      },
    };
    if (settings.aggregate) {
      defineAggregates(t);
      const groupBy = [...groupByValues(t).keys()];
      sc.createEnumTC({ name: names.groupBy, values: Object.fromEntries(groupBy.map((g) => [g, {}])) });
      defineHaving(t);
      connectionFields.aggregates = {
        type: names.aggregates,
        resolve: (src: ConnectionSource, _args: unknown, _ctx: QueryContext, info: GraphQLResolveInfo) => resolveAggregates(src, info),
      };
      connectionFields.groupedAggregates = {
        type: `[${names.aggregates}!]`,
        args: { groupBy: `[${names.groupBy}!]!`, having: names.having },
        resolve: (src: ConnectionSource, args: { groupBy: string[]; having?: Record<string, unknown> | null }, _ctx: QueryContext, info: GraphQLResolveInfo) =>
          resolveGroupedAggregates(src, args, info),
      };
    }
    sc.createObjectTC({ name: names.connectionType, description: `A page of ${names.type} rows.`, fields: connectionFields });
  }

  function defineAggregates(t: EntityTable): void {
    const fields: ObjectTypeComposerFieldConfigMapDefinition<AggregateResult, QueryContext> = {
      keys: { type: '[String!]', description: 'The values of the groupBy columns (groupedAggregates only).' },
      count: { type: 'Int!', description: 'The number of rows.' },
    };
    for (const fn of AGGREGATE_FNS) {
      const columns = aggregateColumns(t, fn);
      if (columns.length === 0) continue;
      const typeName = t.names.aggregatesOf(fn);
      sc.createObjectTC({
        name: typeName,
        fields: Object.fromEntries(columns.map((c) => [c.name, { type: aggregateType(fn, c, typeOf) }])),
      });
      fields[fn] = {
        type: typeName,
        description: UNSAFE_FNS.has(fn) ? `${fn} of each column (needs idx-query --unsafe)` : `${fn} of each column`,
        resolve: (agg: AggregateResult, _args: unknown, ctx: QueryContext) => {
          if (UNSAFE_FNS.has(fn) && !ctx.settings.unsafe) throw unsafeError(fn);
          return agg[fn] ?? {};
        },
      };
    }
    sc.createObjectTC({ name: t.names.aggregates, fields });
  }

  function defineHaving(t: EntityTable): void {
    const fields: Record<string, string> = { AND: `[${t.names.having}!]`, OR: `[${t.names.having}!]` };
    const columns = havingColumns(t);
    if (columns.length > 0) {
      for (const c of columns) {
        const filter = HAVING_FILTER[c.kind]!;
        if (!sc.has(filter.name)) {
          sc.createInputTC({
            name: filter.name,
            fields: Object.fromEntries(
              ['equalTo', 'notEqualTo', 'greaterThan', 'greaterThanOrEqualTo', 'lessThan', 'lessThanOrEqualTo'].map((op) => [op, filter.operand]),
            ),
          });
        }
      }
      for (const fn of AGGREGATE_FNS) {
        const name = t.names.havingOf(fn);
        sc.createInputTC({ name, fields: Object.fromEntries(columns.map((c) => [c.name, HAVING_FILTER[c.kind]!.name])) });
        fields[fn] = name;
      }
    }
    sc.createInputTC({ name: t.names.having, fields });
  }
}

/** The row of `t` whose `column` holds `id` (a one-to-one `@derivedFrom`), batched per request. */
function loadByForeignKey(ctx: QueryContext, t: EntityTable, column: string, id: string, height: bigint | undefined): Promise<EntityRow | null> {
  return ctx.batcher
    .load<EntityRow>(`byFk:${t.entity.name}:${column}:${height ?? 'live'}`, id, async (ids) => {
      const params = new SqlParams();
      const list = params.addList(ids, 'text');
      const rows = await ctx.sql<EntityRow>(
        `select t.${quoteIdent(column)} as __parent, ${selectList('t', t)} from ${t.table} t where t.${quoteIdent(column)} = any(${list}) and ${versionCondition(t, 't', height, params)} order by t.id`,
        params.values,
      );
      const out = new Map<string, EntityRow>();
      for (const r of rows) {
        const parent = r.__parent as string;
        delete r.__parent;
        if (!out.has(parent)) out.set(parent, withHeight(r, height));
      }
      return out;
    })
    .then((r) => r ?? null);
}

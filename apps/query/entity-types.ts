import type { SchemaComposer, ObjectTypeComposerFieldConfigMapDefinition } from 'graphql-compose';
import { rowsByForeignKey } from '../../infra/postgres/read/rows-by-key.ts';
import { ConnectionSource, type ConnectionArgs } from './connection-source.ts';
import { toManyFilterName, type EntityTable } from './entity-tables.ts';
import { loadById, ROW_HEIGHT, withHeight, type EntityRow } from './entity-rows.ts';
import { connectionArgs, filterTypeOf, typeOf } from './graphql-type-names.ts';
import { orderable } from './order-keys.ts';
import type { QueryContext } from './query-context.ts';
import { relatedOrders } from './related-orders.ts';

type Tables = ReadonlyMap<string, EntityTable>;

/** The names of `t`'s orderBy enum, in the order SubQuery lists them: columns, primary key, related rows. */
export function orderByValues(t: EntityTable, tables: Tables): Record<string, object> {
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
  return order;
}

/** The fields of the entity's object type: columns, then relations both ways (Relay's nodeId is relay-ids.ts'). */
export function entityObjectFields(tables: Tables, t: EntityTable): ObjectTypeComposerFieldConfigMapDefinition<EntityRow, QueryContext> {
  const fields: ObjectTypeComposerFieldConfigMapDefinition<EntityRow, QueryContext> = {};
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
        args: connectionArgs(other),
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
  return fields;
}

/** `<Type>Filter`: a filter per column and relation, and `and`, `or`, `not`. */
export function defineEntityFilter(sc: SchemaComposer<QueryContext>, tables: Tables, t: EntityTable): void {
  const { names } = t;
  const f: Record<string, { type: string; description?: string }> = {};
  for (const c of t.columns) f[c.name] = { type: filterTypeOf(sc, c) };
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

/** The edge type: the row and its cursor. */
export function defineEdge(sc: SchemaComposer<QueryContext>, t: EntityTable): void {
  sc.createObjectTC({
    name: t.names.edgeType,
    fields: {
      cursor: 'Cursor',
      node: { type: t.names.type },
    },
  });
}

/** The connection type's own fields: nodes, edges, pageInfo, totalCount (aggregates are plugins/aggregates.ts'). */
export function connectionFields(t: EntityTable): ObjectTypeComposerFieldConfigMapDefinition<ConnectionSource, QueryContext> {
  const { names } = t;
  return {
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
}

/** The row of `t` whose `column` holds `id` (a one-to-one `@derivedFrom`), batched per request. */
function loadByForeignKey(ctx: QueryContext, t: EntityTable, column: string, id: string, height: bigint | undefined): Promise<EntityRow | null> {
  return ctx.batcher
    .load<EntityRow>(`byFk:${t.entity.name}:${column}:${height ?? 'live'}`, id, async (ids) => {
      const { text, values } = rowsByForeignKey(t, column, ids, height);
      const rows = await ctx.sql<EntityRow>(text, values);
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

import pluralize from 'pluralize';
import type { EntityModel, FieldModel, Scalar, SchemaModel } from '../../domain/entities/entity-model.ts';
import { enumSqlType } from '../../infra/postgres/column-codec.ts';
import { qualified, quoteIdent } from '../../infra/postgres/sql.ts';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';

/** How a column is filtered, ordered and shown in GraphQL. `bytes` (bytea) shows and filters as 0x-hex text. */
export type ValueKind = 'string' | 'bytes' | 'int' | 'float' | 'bigfloat' | 'boolean' | 'datetime' | 'json' | 'enum';

/** One stored column of an entity, as the query service sees it. */
export interface QueryColumn {
  /** GraphQL field: `blockHeight`; a relation `from` is stored as `fromId` */
  name: string;
  /** SQL column: `block_height`, `from_id` */
  column: string;
  /** enum value stem for orderBy/groupBy/distinct: `BLOCK_HEIGHT`, `FROM_ID` */
  upper: string;
  kind: ValueKind;
  list: boolean;
  nullable: boolean;
  /** the SQL type of one value (an item for enum lists), for casting parameters: `numeric`, `"schema"."kind"` */
  sqlType: string;
  /** the GraphQL enum type, for `kind: 'enum'` */
  enumName?: string;
  /** the model field; absent for `id` */
  field?: FieldModel;
  /** a relation column: the entity it points to */
  references?: string;
}

/** A relation read from the other side: `@derivedFrom(field: "from")` on Account is Transfer.from. */
export interface BackwardRelation {
  /** GraphQL field on the owner: `sentTransfers` */
  name: string;
  /** the entity holding the foreign key: `Transfer` */
  entity: string;
  /** its column: `from_id` */
  column: string;
  /** `[Transfer]` (a connection) or a single row */
  many: boolean;
}

export interface ForwardRelation {
  /** GraphQL field: `from` */
  name: string;
  /** the id column: `from_id` */
  column: string;
  entity: string;
  nullable: boolean;
}

/** Everything the schema and the SQL need about one entity. */
export interface EntityTable {
  entity: EntityModel;
  /** `"schema"."transfers"` */
  table: string;
  historical: boolean;
  /** the node keeps the `--changes-index` indexes: `<entity>Changes` can be served */
  changes: boolean;
  /** `id` first, then every stored field */
  columns: QueryColumn[];
  byName: Map<string, QueryColumn>;
  forward: ForwardRelation[];
  backward: BackwardRelation[];
  names: EntityNames;
}

/** PostGraphile's names for an entity (SubQuery's query service uses its "simplify" inflector). */
export interface EntityNames {
  /** `Transfer` */
  type: string;
  /** `transfer` */
  single: string;
  /** `transfers` */
  connection: string;
  /** `TransfersConnection`, `TransfersEdge`, `TransfersOrderBy`, `TransfersGroupBy`, `TransfersHavingInput` */
  connectionType: string;
  edgeType: string;
  orderBy: string;
  groupBy: string;
  having: string;
  /** `TransferFilter` */
  filter: string;
  /** `transfers_distinct_enum` */
  distinct: string;
  /** `TransferAggregates` */
  aggregates: string;
  /** `searchTransfers`: SubQuery names its `@fullText` function `search_<table>` */
  search: string;
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1);
const upperFirst = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);
/** `starter_entities` → `starterEntities` */
export const camelCase = (s: string) => s.replace(/_+([a-z0-9])/gi, (_m, c: string) => c.toUpperCase());

export function entityNames(entity: EntityModel): EntityNames {
  const single = lowerFirst(entity.name);
  let connection = lowerFirst(camelCase(entity.table));
  // `Sheep` → table `sheep`: PostGraphile then prefixes the list with `all`.
  if (connection === single) connection = `all${upperFirst(pluralize(entity.name))}`;
  const plural = upperFirst(connection);
  return {
    type: entity.name,
    single,
    connection,
    connectionType: `${plural}Connection`,
    edgeType: `${plural}Edge`,
    orderBy: `${plural}OrderBy`,
    groupBy: `${plural}GroupBy`,
    having: `${plural}HavingInput`,
    filter: `${entity.name}Filter`,
    distinct: `${entity.table}_distinct_enum`,
    aggregates: `${entity.name}Aggregates`,
    search: `search${upperFirst(camelCase(entity.table))}`,
  };
}

const SCALAR_KIND: Record<Scalar, ValueKind> = {
  ID: 'string',
  String: 'string',
  Bytes: 'bytes',
  Int: 'int',
  Float: 'float',
  BigInt: 'bigfloat',
  BigDecimal: 'bigfloat',
  Boolean: 'boolean',
  Date: 'datetime',
  JSON: 'json',
};

// the column types of SubQuery's layout (infra/postgres/column-codec.ts)
const KIND_SQL: Record<Exclude<ValueKind, 'enum'>, string> = {
  string: 'text',
  bytes: 'bytea',
  int: 'integer',
  float: 'double precision',
  bigfloat: 'numeric',
  boolean: 'boolean',
  datetime: 'timestamp',
  json: 'jsonb',
};

function queryColumn(field: FieldModel, model: SchemaModel, schema: string): QueryColumn {
  const t = field.type;
  const column = field.column!;
  const base = { column, upper: column.toUpperCase(), list: field.list, nullable: field.nullable, field };
  switch (t.kind) {
    case 'scalar':
      // Lists but enum lists are one jsonb array (see column-codec.ts): they show and filter as JSON, as SubQuery's do.
      if (t.scalar === 'JSON' || field.list) return { ...base, name: field.name, kind: 'json', list: false, sqlType: 'jsonb' };
      return { ...base, name: field.name, kind: SCALAR_KIND[t.scalar], sqlType: KIND_SQL[SCALAR_KIND[t.scalar] as Exclude<ValueKind, 'enum'>] };
    case 'json':
      return { ...base, name: field.name, kind: 'json', list: false, sqlType: 'jsonb' };
    case 'enum':
      return { ...base, name: field.name, kind: 'enum', sqlType: enumSqlType(schema, t.name, model), enumName: t.name };
    case 'entity':
      return { ...base, name: `${field.name}Id`, kind: 'string', sqlType: 'text', references: t.entity };
  }
}

/** The query service's view of every entity of a stored project. */
export function entityTables(project: StoredProject): Map<string, EntityTable> {
  const { model, schema } = project;
  const out = new Map<string, EntityTable>();
  for (const entity of model.entities) {
    const columns: QueryColumn[] = [{ name: 'id', column: 'id', upper: 'ID', kind: 'string', list: false, nullable: false, sqlType: 'text' }];
    const forward: ForwardRelation[] = [];
    const backward: BackwardRelation[] = [];
    for (const field of entity.fields) {
      if (field.name === 'id') continue;
      if (field.derivedFrom !== undefined && field.type.kind === 'entity') {
        const other = model.entities.find((e) => e.name === (field.type as { entity: string }).entity);
        const fk = other?.fields.find((f) => f.name === field.derivedFrom)?.column;
        if (other !== undefined && fk !== undefined) backward.push({ name: field.name, entity: other.name, column: fk, many: field.list });
        continue;
      }
      if (field.column === undefined) continue;
      const c = queryColumn(field, model, schema);
      columns.push(c);
      if (field.type.kind === 'entity') forward.push({ name: field.name, column: c.column, entity: field.type.entity, nullable: field.nullable });
    }
    out.set(entity.name, {
      entity,
      table: qualified(schema, entity.table),
      historical: project.historicalTables.has(entity.table),
      changes: project.changesTables.has(entity.table),
      columns,
      byName: new Map(columns.map((c) => [c.name, c])),
      forward,
      backward,
      names: entityNames(entity),
    });
  }
  return out;
}

/**
 * The SELECT expression of a column as GraphQL shows it: numbers that JavaScript cannot hold
 * exactly (numeric) and enum arrays come as text, which the drivers pass through unchanged, and
 * bytes as 0x-hex. (Timestamps, UTC without a zone, the drivers read as UTC: utc-timestamps.ts.)
 */
export function selectExpression(alias: string, c: QueryColumn, prefix = ''): string {
  const ref = `${alias}.${quoteIdent(c.column)}`;
  const as = ` as ${quoteIdent(prefix + c.column)}`;
  if (c.list && c.kind === 'enum') return `${ref}::text[]${as}`;
  if (c.kind === 'bigfloat') return `${ref}::text${as}`;
  if (c.kind === 'bytes') return `${hexOf(ref)}${as}`;
  return prefix === '' ? ref : `${ref}${as}`;
}

/** a bytea value as GraphQL shows it: lowercase 0x-hex */
export function hexOf(ref: string): string {
  return `('0x' || encode(${ref}, 'hex'))`;
}

/** every column of `t`, each named `<prefix><column>` */
export function selectList(alias: string, t: EntityTable, prefix = ''): string {
  return t.columns.map((c) => selectExpression(alias, c, prefix)).join(', ');
}

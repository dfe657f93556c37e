import type { EntityModel, FieldModel, Scalar, SchemaModel } from '../../domain/entities/entity-model.ts';
import { enumSqlType } from '../../infra/postgres/column-codec.ts';
import type { ValueKind } from '../../infra/postgres/read/select-list.ts';
import { schemaTable } from '../../infra/postgres/read/schema-table.ts';
import { camelCase, constantCase, distinctPluralize, pluralize, singularize, upperCamelCase } from './postgraphile-inflection.ts';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';

export type { ValueKind };

/** One stored column of an entity, as the query service sees it (a ReadColumn to the reads). */
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

/**
 * The names SubQuery's query service gives an entity, which PostGraphile derives from the table's
 * name with the "simplify" inflector and its plugins' inflectors (postgraphile-inflection.ts), so
 * `new_t_t_ls` gives type `NewTTL`, `newTTLs`, `NewTtlsConnection` and `NewTTLsGroupBy` alike.
 */
export interface EntityNames {
  /** `Transfer`, `NewTTL`, `DailyPoolStat` (from `daily_pool_stats`) */
  type: string;
  /** `transfer` */
  single: string;
  /** `transfers`, `sheeps` (a plural unlike the singular) */
  connection: string;
  /** from the type's plural: `TransfersConnection`, `TransfersEdge`, `TransfersOrderBy` */
  connectionType: string;
  edgeType: string;
  orderBy: string;
  /** from the table: `TransfersGroupBy`, `TransfersHavingInput`, `TransfersHavingSumInput` */
  groupBy: string;
  having: string;
  havingOf(fn: string): string;
  /** `TransferFilter` */
  filter: string;
  /** `transfers_distinct_enum` */
  distinct: string;
  /** from the table's singular: `TransferAggregates`, `TransferSumAggregates` */
  aggregates: string;
  aggregatesOf(fn: string): string;
  /** `searchTransfers`: SubQuery names its `@fullText` function `search_<table>` */
  search: string;
}

export function entityNames(entity: EntityModel): EntityNames {
  const table = entity.table;
  // PostGraphile's _singularizedTableName
  const singularTable = singularize(table).replace(/.(?:(?:[_-]i|I)nput|(?:[_-]p|P)atch)$/, '$&_record');
  const type = upperCamelCase(singularTable);
  const plural = pluralize(type);
  return {
    type,
    single: camelCase(singularTable),
    connection: camelCase(distinctPluralize(singularTable)),
    connectionType: upperCamelCase(`${plural}-connection`),
    edgeType: upperCamelCase(`${plural}-edge`),
    orderBy: upperCamelCase(`${plural}-order-by`),
    groupBy: upperCamelCase(`${table}-group-by`),
    having: upperCamelCase(`${table}-having-input`),
    havingOf: (fn) => upperCamelCase(`${table}-having-${fn}-input`),
    filter: `${type}Filter`,
    distinct: `${table}_distinct_enum`,
    aggregates: upperCamelCase(`${singularTable}-aggregates`),
    aggregatesOf: (fn) => upperCamelCase(`${singularTable}-${fn}-aggregates`),
    search: camelCase(`search_${table}`),
  };
}

/** connection-filter's type of a filter on the rows of `child` related to a row of `parent`: `AccountToManyTransferFilter` */
export function toManyFilterName(parent: EntityTable, child: EntityTable): string {
  return upperCamelCase(`${parent.names.type}-to-many-${child.names.type}-filter`);
}

/** The relation a foreign key column names, as the simplify inflector reads it: `owner_id` → `owner` */
export function relationName(column: string): string {
  const m = /^(.+?)(_row_id|_id|_uuid|_fk|_pk|RowId|Id|Uuid|UUID|Fk|Pk)$/.exec(column);
  return camelCase(m === null ? column : m[1]!);
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

/** A stored field as the query service shows it: named after its column, as PostGraphile names it (`price_e_t_h` → `priceETH`, `PRICE_E_T_H`). */
function queryColumn(field: FieldModel, model: SchemaModel, schema: string): QueryColumn {
  const t = field.type;
  const column = field.column!;
  const base = { column, name: camelCase(column), upper: constantCase(column), list: field.list, nullable: field.nullable, field };
  switch (t.kind) {
    case 'scalar':
      // Lists but enum lists are one jsonb array (see column-codec.ts): they show and filter as JSON, as SubQuery's do.
      if (t.scalar === 'JSON' || field.list) return { ...base, kind: 'json', list: false, sqlType: 'jsonb' };
      return { ...base, kind: SCALAR_KIND[t.scalar], sqlType: KIND_SQL[SCALAR_KIND[t.scalar] as Exclude<ValueKind, 'enum'>] };
    case 'json':
      return { ...base, kind: 'json', list: false, sqlType: 'jsonb' };
    case 'enum':
      return { ...base, kind: 'enum', sqlType: enumSqlType(schema, t.name, model), enumName: t.name };
    case 'entity':
      return { ...base, kind: 'string', sqlType: 'text', references: t.entity };
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
      if (field.type.kind === 'entity') forward.push({ name: relationName(c.column), column: c.column, entity: field.type.entity, nullable: field.nullable });
    }
    out.set(entity.name, {
      entity,
      table: schemaTable(schema, entity.table),
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

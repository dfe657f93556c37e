/**
 * The entity model: what `schema.graphql` declares, resolved to tables and columns.
 * It is plain JSON so the node can store it in `_metadata.schema` and the query service can rebuild from it.
 */

export const SCALARS = ['ID', 'String', 'Int', 'BigInt', 'Float', 'Boolean', 'Date', 'Bytes', 'BigDecimal', 'JSON'] as const;
export type Scalar = (typeof SCALARS)[number];

export type FieldType =
  | { kind: 'scalar'; scalar: Scalar }
  | { kind: 'enum'; name: string }
  /** a `@jsonField` type, stored as jsonb */
  | { kind: 'json'; name: string }
  /** a relation to another entity, stored as `<column>` holding the other entity's id */
  | { kind: 'entity'; entity: string };

export interface FieldModel {
  /** GraphQL name, e.g. `blockHeight` */
  name: string;
  type: FieldType;
  nullable: boolean;
  /** `[T]` in the schema; `itemNullable` says whether items may be null */
  list: boolean;
  itemNullable: boolean;
  /**
   * Column name, e.g. `block_height`; a relation field `owner` is stored as `owner_id`.
   * Absent for virtual fields (`@derivedFrom`), which have no column.
   */
  column?: string;
  /** `@derivedFrom(field: "x")`: the reverse side of a relation; virtual */
  derivedFrom?: string;
  /** `@index` or `@index(unique: true)` on this field */
  index?: { unique: boolean };
}

/** A composite `@compositeIndexes` entry or a field index, as created in the database */
export interface IndexModel {
  /** columns, in order */
  columns: string[];
  unique: boolean;
}

/** The column holding an `@fullText` entity's words (a generated `tsvector`), named as SubQuery names it. */
export const FULL_TEXT_COLUMN = '_tsv';

/** `@fullText(fields: [...], language: "english")`: one text-search document over String fields */
export interface FullTextModel {
  /** GraphQL names, in the directive's order */
  fields: string[];
  /** their columns, same order */
  columns: string[];
  /** a PostgreSQL text search configuration: `english`, `simple`, `german`, … */
  language: string;
}

export interface EntityModel {
  /** GraphQL type name, e.g. `StarterEntity` */
  name: string;
  /** table name, e.g. `starter_entities` */
  table: string;
  fields: FieldModel[];
  indexes: IndexModel[];
  fullText?: FullTextModel;
  description?: string;
}

export interface EnumModel {
  name: string;
  /** Postgres enum type name */
  pgName: string;
  values: string[];
}

export interface JsonTypeModel {
  name: string;
  fields: FieldModel[];
}

export interface SchemaModel {
  /**
   * The rules the tables were named and typed by (`domain/entities/layout.ts`): a stored model
   * keeps the rules its schema was made with. Models stored before there was a choice have none: 1.
   */
  layout: number;
  entities: EntityModel[];
  enums: EnumModel[];
  jsonTypes: JsonTypeModel[];
}

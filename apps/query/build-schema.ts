import type { GraphQLSchema } from 'graphql';
import { GraphQLJSON, SchemaComposer } from 'graphql-compose';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';
import { changesFields } from './changes-fields.ts';
import { defineEntityQueryFields } from './entity-query-fields.ts';
import { entityTables, type EntityTable } from './entity-tables.ts';
import { defineEntity } from './entity-types.ts';
import { metadataFields } from './metadata-fields.ts';
import { defineNodeInterface } from './node-interface.ts';
import type { QueryContext, QuerySettings } from './query-context.ts';
import { GraphQLBigFloat, GraphQLBigIntString, GraphQLCursor, GraphQLDatetime } from './scalars.ts';

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
  const loadNode = defineNodeInterface(sc, tables);
  for (const t of tables.values()) defineEntity(sc, tables, settings, t);
  for (const t of tables.values()) defineEntityQueryFields(sc, t, loadNode);
  changesFields(sc, tables);
  metadataFields(sc, project.schema, input.version);
  return { composer: sc, tables };
}

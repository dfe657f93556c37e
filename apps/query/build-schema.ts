import type { GraphQLSchema } from 'graphql';
import { SchemaComposer } from 'graphql-compose';
import type { StoredProject } from '../../infra/postgres/read-stored-project.ts';
import { entityTables, type EntityTable } from './entity-tables.ts';
import type { QueryContext, QuerySettings } from './query-context.ts';
import { composeSchema } from './schema/compose-schema.ts';
import type { SchemaExtension } from './schema/schema-extension.ts';
import { SCHEMA_PLUGINS } from './schema/schema-plugins.ts';

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
 * gives it (docs/graphql.md): schema/schema-plugins.ts' plugins, then `extensions` (subscriptions, for one).
 */
export function buildSchema(input: BuildSchemaInput): BuiltSchema {
  const { composer, tables } = createSchemaComposer(input);
  return { schema: composer.buildSchema(), composer, tables, project: input.project };
}

/** The composer with every type and query field, not built yet: the plugins', then the extensions'. */
export function createSchemaComposer(input: BuildSchemaInput): { composer: SchemaComposer<QueryContext>; tables: ReadonlyMap<string, EntityTable> } {
  const { project, settings, version } = input;
  const composer = new SchemaComposer<QueryContext>();
  const tables = entityTables(project);
  composeSchema({ composer, tables, project, settings, version }, [...SCHEMA_PLUGINS, ...(input.extensions ?? [])]);
  return { composer, tables };
}

import type { ObjectTypeComposerFieldConfigMapDefinition, SchemaComposer } from 'graphql-compose';
import type { StoredProject } from '../../../infra/postgres/read-stored-project.ts';
import type { EntityTable } from '../entity-tables.ts';
import type { QueryContext, QuerySettings } from '../query-context.ts';

/** What every plugin sees while the schema is built. */
export interface SchemaBuild {
  composer: SchemaComposer<QueryContext>;
  tables: ReadonlyMap<string, EntityTable>;
  project: StoredProject;
  settings: QuerySettings;
  /** this service's version, for `_metadata.queryNodeVersion` */
  version: string;
}

/** a type's fields; their source is the plugin's own (a row, a ConnectionSource) */
export type FieldMap = ObjectTypeComposerFieldConfigMapDefinition<any, QueryContext>;

/**
 * One feature of the GraphQL schema (connections, aggregates, search, changes, Relay ids, …). The
 * schema is built in steps, each calling the plugins in list order, so that the types and fields
 * come out in the same order whatever a plugin adds:
 *   1. `prepare`: shared types and root fields, before any entity
 *   2. per entity: `entityFields` make its object type, then `entityTypes`, then `connectionFields`
 *      make its connection type
 *   3. per entity: `queryFields`, added to Query plugin by plugin
 *   4. `finish`: what comes after every entity (Query fields of its own, the Subscription type)
 */
export interface SchemaExtension {
  readonly name: string;
  prepare?(build: SchemaBuild): void;
  /** fields of the entity's object type */
  entityFields?(build: SchemaBuild, t: EntityTable): FieldMap | undefined;
  /** the entity's other types (its object type exists) */
  entityTypes?(build: SchemaBuild, t: EntityTable): void;
  /** fields of the entity's connection type */
  connectionFields?(build: SchemaBuild, t: EntityTable): FieldMap | undefined;
  /** the entity's root Query fields */
  queryFields?(build: SchemaBuild, t: EntityTable): FieldMap | undefined;
  finish?(build: SchemaBuild): void;
}

import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { runMigrations } from './run-migrations.ts';
import { applySchemaDdl, type SchemaDdlOptions } from './schema-ddl.ts';
import { execute, quoteIdent } from './sql.ts';

/**
 * Everything a project schema needs before the store opens it: the internal tables (migrations)
 * and the entity tables. Safe to run at every start, and from several processes at once.
 * Returns the migrations applied now.
 */
export async function prepareProjectSchema(db: Kysely<any>, model: SchemaModel, options: SchemaDdlOptions): Promise<string[]> {
  const applied = await runMigrations(db, options.schema);
  await applySchemaDdl(db, model, options);
  return applied;
}

/** Drops the project schema with all its tables and data (`force-clean`). */
export async function dropProjectSchema(db: Kysely<any>, schema: string): Promise<void> {
  await execute(db, `drop schema if exists ${quoteIdent(schema)} cascade`);
}

import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { describeChange, type SchemaChange } from '../../domain/entities/schema-diff.ts';
import { IdxError } from '../../domain/errors.ts';
import { toJsonText } from './column-codec.ts';
import { textArray } from './pg-arrays.ts';
import { planEntityMigration, type MigrationStep } from './plan-entity-migration.ts';
import type { SchemaDdlOptions } from './schema-ddl.ts';
import { execute, hasColumn, qualified, type Executor } from './sql.ts';

export interface MigrateOptions extends SchemaDdlOptions {
  /** `_metadata` keys written in the migration's transaction (the new `schema`, `schemaMigrationCount`) */
  metadata: Readonly<Record<string, unknown>>;
}

/**
 * `--allow-schema-migration`: brings the project's tables from the model they were made with to
 * the current one, in place and in one transaction with the stored model: new enums and values,
 * dropped tables, columns added, dropped or retyped (with a cast from the old values), dropped
 * indexes, enums without removed values; then every table and index of the new model that is
 * missing is created (the steps: plan-entity-migration.ts). A change the data cannot take (a
 * required field added to a table with rows, a cast that fails) throws and leaves everything as it was.
 */
export async function migrateEntitySchema(
  db: Kysely<any>,
  from: SchemaModel,
  to: SchemaModel,
  changes: readonly SchemaChange[],
  options: MigrateOptions,
): Promise<void> {
  const { schema } = options;
  await db.transaction().execute(async (tx) => {
    await execute(tx, `select pg_advisory_xact_lock(hashtextextended($1, 0))`, [`idx.ddl:${schema}`]);
    for (const step of planEntityMigration(from, to, changes, options)) await runStep(tx, schema, step);
    const keys = Object.keys(options.metadata);
    await execute(
      tx,
      `insert into ${qualified(schema, '_metadata')} (key, value) select k, v::jsonb from unnest($1::text[], $2::text[]) as u(k, v) on conflict (key) do update set value = excluded.value`,
      [textArray(keys), textArray(keys.map((k) => toJsonText(options.metadata[k])))],
    );
  });
}

async function runStep(tx: Executor, schema: string, step: MigrationStep): Promise<void> {
  if ('refusal' in step) {
    if (step.refuseIfRows === undefined || (await execute(tx, `select 1 from ${step.refuseIfRows} limit 1`)).length > 0) {
      throw new IdxError('SCHEMA_MIGRATION_REFUSED', step.refusal);
    }
    return;
  }
  if (step.ifColumn !== undefined && !(await hasColumn(tx, schema, step.ifColumn.table, step.ifColumn.column))) return;
  try {
    await execute(tx, step.sql);
  } catch (err) {
    throw new IdxError(
      'SCHEMA_MIGRATION_FAILED',
      `schema migration of "${schema}" failed at "${describeChange(step.change)}": ${(err as Error).message}. Nothing was changed; ` +
        'adjust schema.graphql, or index into a new schema with --db-schema <name>, or run idx-node force-clean to start over',
      { cause: err },
    );
  }
}

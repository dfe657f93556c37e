import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import { describeChange, diffSchemas } from '../../../domain/entities/schema-diff.ts';
import { IdxError } from '../../../domain/errors.ts';
import { LAYOUT, withStoredLayout } from '../../../domain/entities/layout.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { migrateEntitySchema } from '../../../infra/postgres/migrate-entity-schema.ts';
import { runMigrations } from '../../../infra/postgres/run-migrations.ts';
import { upgradeLayout } from '../../../infra/postgres/upgrade-layout.ts';
import type { SchemaDdlOptions } from '../../../infra/postgres/schema-ddl.ts';
import { execute, qualified } from '../../../infra/postgres/sql.ts';

/**
 * Before the tables are touched: compares the entity model the schema was indexed with
 * (`_metadata.schema`) with the project's. A difference stops the node with the list of changes,
 * unless `--allow-schema-migration` is given; then the tables are migrated in place and the new
 * model and `schemaMigrationCount` are committed with the DDL. Returns the changes applied.
 */
export async function applySchemaChange(
  db: Kysely<any>,
  model: SchemaModel,
  options: SchemaDdlOptions & { allowMigration: boolean; logger: Logger },
): Promise<string[]> {
  const { schema } = options;
  await runMigrations(db, schema);
  const rows = await execute<{ key: string; value: unknown }>(
    db,
    `select key, value from ${qualified(schema, '_metadata')} where key in ('schema', 'schemaMigrationCount')`,
  );
  const found = rows.find((r) => r.key === 'schema')?.value as SchemaModel | null | undefined;
  if (found === undefined || found === null) return [];
  let stored = withStoredLayout(found);
  if (stored.layout < LAYOUT) {
    // made by an earlier idx: first the same model in SubQuery's layout, then any change of schema.graphql
    const started = Date.now();
    const upgrade = await upgradeLayout(db, stored, options);
    options.logger
      .child('node')
      .info(
        `upgraded schema "${schema}" to SubQuery's table layout in ${Date.now() - started} ms (every version kept):\n${upgrade.lines.map((l) => `  - ${l}`).join('\n')}`,
      );
    stored = upgrade.model;
  }
  // jsonb keeps no key order, and JSON drops undefined keys: compare as JSON values.
  if (isDeepStrictEqual(stored, JSON.parse(JSON.stringify(model)))) return [];
  const changes = diffSchemas(stored, model);
  // Only descriptions or order changed: the stored model is simply replaced at start.
  if (changes.length === 0) return [];
  const lines = changes.map(describeChange);
  if (!options.allowMigration) {
    throw new IdxError(
      'SCHEMA_CHANGED',
      `schema.graphql changed since schema "${schema}" was indexed:\n${lines.map((l) => `  - ${l}`).join('\n')}\n` +
        'Start with --allow-schema-migration to migrate the tables in place, index into a new schema with --db-schema <name>, or run idx-node force-clean to start over',
    );
  }
  const count = Number(rows.find((r) => r.key === 'schemaMigrationCount')?.value ?? 0) + 1;
  const started = Date.now();
  await migrateEntitySchema(db, stored, model, changes, { ...options, metadata: { schema: model, schemaMigrationCount: count } });
  options.logger
    .child('node')
    .info(`migrated schema "${schema}" in ${Date.now() - started} ms (migration ${count}):\n${lines.map((l) => `  - ${l}`).join('\n')}`);
  return lines;
}

import { isDeepStrictEqual } from 'node:util';
import type { Kysely } from 'kysely';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import { describeChange, diffSchemas } from '../../../domain/entities/schema-diff.ts';
import { chainMetadataTable } from '../../../domain/entities/chain-tables.ts';
import { IdxError } from '../../../domain/errors.ts';
import { ADDITIVE_RULES, classifyRedeploy, type RedeployVerdict } from '../../../domain/project/classify-redeploy.ts';
import type { DeploymentRecord } from '../../../domain/project/deployment-record.ts';
import type { DynamicDataSourceRecord } from '../../../domain/project/dynamic-data-sources.ts';
import { LAYOUT, withStoredLayout } from '../../../domain/entities/layout.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { migrateEntitySchema } from '../../../infra/postgres/migrate-entity-schema.ts';
import { runMigrations } from '../../../infra/postgres/run-migrations.ts';
import { upgradeLayout } from '../../../infra/postgres/upgrade-layout.ts';
import type { SchemaDdlOptions } from '../../../infra/postgres/schema-ddl.ts';
import { execute, qualified } from '../../../infra/postgres/sql.ts';

/** What a start compares besides schema.graphql (absent for `reindex`, which rewinds and runs no handler). */
export interface RedeployCheck {
  /** the deployment being started, stored as `_metadata.idxDeployment` once the start is accepted */
  deployment: DeploymentRecord;
  /** `--multi-chain`: the chain whose `_metadata_<chain>` holds the indexed height and the last record */
  chainId?: string;
}

/**
 * Before the tables are touched: compares the entity model the schema was indexed with
 * (`_metadata.schema`) and the handlers it was indexed by (`_metadata.idxDeployment`) with the
 * project's. Changes a fresh index of the new version would reproduce (domain/project/classify-redeploy.ts)
 * apply in place, each logged with its rule; any other stops the node with the list of what needs a
 * reindex, unless `--allow-schema-migration` is given (SubQuery's meaning: migrate the tables in place
 * whatever changed, and go on with the new code). The new model and `schemaMigrationCount` are
 * committed with the DDL. Returns the changes applied.
 */
export async function applySchemaChange(
  db: Kysely<any>,
  model: SchemaModel,
  options: SchemaDdlOptions & { allowMigration: boolean; logger: Logger; redeploy?: RedeployCheck },
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
  const log = options.logger.child('node');
  if (stored.layout < LAYOUT) {
    // made by an earlier idx: first the same model in SubQuery's layout, then any change of schema.graphql
    const started = Date.now();
    const upgrade = await upgradeLayout(db, stored, options);
    log.info(
      `upgraded schema "${schema}" to SubQuery's table layout in ${Date.now() - started} ms (every version kept):\n${upgrade.lines.map((l) => `  - ${l}`).join('\n')}`,
    );
    stored = upgrade.model;
  }
  // jsonb keeps no key order, and JSON drops undefined keys: compare as JSON values.
  const schemaChanges = isDeepStrictEqual(stored, JSON.parse(JSON.stringify(model))) ? [] : diffSchemas(stored, model);
  const indexed = await readIndexedState(db, schema, options.redeploy?.chainId);
  const verdict = classifyRedeploy({
    schemaChanges,
    before: indexed.deployment,
    ...(options.redeploy !== undefined && { after: options.redeploy.deployment }),
    indexedHeight: indexed.height,
    dynamic: indexed.dynamic,
  });
  // Only descriptions or order changed: the stored model is simply replaced at start.
  if (verdict.additive.length === 0 && verdict.reindex.length === 0) return [];
  if (verdict.reindex.length > 0 && !options.allowMigration) throw refusal(schema, verdict, indexed.height);
  const lines = schemaChanges.map(describeChange);
  const started = Date.now();
  if (schemaChanges.length > 0) {
    const count = Number(rows.find((r) => r.key === 'schemaMigrationCount')?.value ?? 0) + 1;
    await migrateEntitySchema(db, stored, model, schemaChanges, { ...options, metadata: { schema: model, schemaMigrationCount: count } });
  }
  const took = Date.now() - started;
  if (verdict.additive.length > 0) {
    log.info(
      `applied in place to schema "${schema}" in ${took} ms, no reindex (a fresh index of this version would hold the same rows):\n` +
        verdict.additive.map((a) => `  - ${a.what} [rule ${a.rule}: ${ADDITIVE_RULES[a.rule]}]`).join('\n'),
    );
  }
  if (verdict.reindex.length > 0) {
    // the rows already indexed are no longer what the handlers now run would write: no partial reindex may copy them
    const table = options.redeploy?.chainId === undefined ? '_metadata' : chainMetadataTable(options.redeploy.chainId);
    await execute(db, `update ${qualified(schema, table)} set value = jsonb_set(value, '{complete}', 'false') where key = 'idxHandlerAccess'`);
    log.warn(
      `--allow-schema-migration: applied in place to schema "${schema}" in ${took} ms what a fresh index of this version would write differently ` +
        `(the rows already indexed stay as the earlier version wrote them; the new code runs from the next block):\n${reindexLines(verdict)}`,
    );
  }
  return lines;
}

const reindexLines = (verdict: RedeployVerdict) => verdict.reindex.map((r) => `  - ${r.what}: ${r.why}`).join('\n');

function refusal(schema: string, verdict: RedeployVerdict, height: number | undefined): IdxError {
  const handlers = verdict.reindex.filter((r) => r.handler !== undefined);
  const firstBlocks = handlers.flatMap((r) => (r.from !== undefined ? [r.from] : []));
  const rewind =
    firstBlocks.length > 0 && Math.min(...firstBlocks) > 0 && verdict.reindex.length === handlers.length
      ? `rewind below the first block the changed handlers ran on with idx-node reindex --targetHeight ${Math.min(...firstBlocks) - 1}, `
      : '';
  const additive =
    verdict.additive.length > 0 ? `\nThese would apply in place:\n${verdict.additive.map((a) => `  - ${a.what} [rule ${a.rule}]`).join('\n')}` : '';
  return new IdxError(
    handlers.length > 0 ? 'REINDEX_NEEDED' : 'SCHEMA_CHANGED',
    `${handlers.length > 0 ? 'the project' : 'schema.graphql'} changed since schema "${schema}" was indexed${height !== undefined ? ` (to block ${height})` : ''}; ` +
      `these changes need a reindex:\n${reindexLines(verdict)}${additive}\n` +
      `Index the new version into a new schema with --db-schema <name> beside the one served (docs/deploy.md), ${rewind}` +
      'run idx-node force-clean to start over, or start with --allow-schema-migration to migrate the tables in place and run the new version from here on ' +
      '(the rows already indexed stay as the earlier version wrote them)',
  );
}

/** The indexed height, the data sources made from templates and the last start's record: what the handlers' changes are judged by. */
async function readIndexedState(
  db: Kysely<any>,
  schema: string,
  chainId: string | undefined,
): Promise<{ height?: number; dynamic: DynamicDataSourceRecord[]; deployment?: DeploymentRecord }> {
  const table = chainId === undefined ? '_metadata' : chainMetadataTable(chainId);
  const [exists] = await execute<{ t: string | null }>(db, `select to_regclass($1) as t`, [qualified(schema, table)]);
  if (exists?.t === null || exists?.t === undefined) return { dynamic: [] };
  const rows = await execute<{ key: string; value: unknown }>(
    db,
    `select key, value from ${qualified(schema, table)} where key in ('lastProcessedHeight', 'dynamicDatasources', 'idxDeployment')`,
  );
  const value = (key: string) => rows.find((r) => r.key === key)?.value;
  const height = value('lastProcessedHeight');
  const dynamic = value('dynamicDatasources');
  const deployment = value('idxDeployment') as DeploymentRecord | null | undefined;
  return {
    ...(typeof height === 'number' && { height }),
    dynamic: Array.isArray(dynamic) ? (dynamic as DynamicDataSourceRecord[]) : [],
    ...(deployment !== null && deployment !== undefined && { deployment }),
  };
}

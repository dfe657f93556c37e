import { basename, join } from 'node:path';
import type { DeploymentRecord } from '../../../domain/project/deployment-record.ts';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import { schemaNameProblem } from '../../../domain/entities/names.ts';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { prepareChainTables } from '../../../infra/postgres/chain-tables-ddl.ts';
import { createDb, type Db } from '../../../infra/postgres/create-db.ts';
import { createEntityStore } from '../../../infra/postgres/create-entity-store.ts';
import { prepareProjectSchema } from '../../../infra/postgres/prepare-project-schema.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import { applySchemaChange } from './apply-schema-change.ts';
import type { NodeOptions } from './node-options.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** The database schema of a project: `--db-schema`, else `--idx-name`, else the project folder's name. */
export function projectSchemaName(options: NodeOptions, project: LoadedProject): string {
  return checkedSchemaName(options, options.dbSchema ?? options.idxName ?? basename(project.root), `the project folder ${project.root}`);
}

/** `name` when it fits a PostgreSQL schema name; else a refusal naming where the name came from. */
export function checkedSchemaName(options: Pick<NodeOptions, 'dbSchema' | 'idxName'>, name: string, folder: string): string {
  const problem = schemaNameProblem(name);
  if (problem === undefined) return name;
  const from = options.dbSchema !== undefined ? '--db-schema' : options.idxName !== undefined ? '--idx-name' : `the name of ${folder}`;
  throw new IdxError('BAD_ARGUMENT', `${problem} (from ${from}); give a shorter --db-schema`);
}

/**
 * The project's database, with its writer lock taken (every caller writes): the schema's, or with
 * `--multi-chain` this chain's share of it. `onLost` hears when the lock's connection breaks.
 */
export async function openProjectDb(options: NodeOptions, project: LoadedProject, env: Env, program: string, onLost?: (err: IdxError) => void): Promise<Db> {
  const chainId = options.multiChain ? project.manifest.network?.chainId : undefined;
  return createDb({
    env,
    dataDir: join(project.root, '.idx-data'),
    ssl: { ca: options.pgCa, cert: options.pgCert, key: options.pgKey },
    applicationName: 'idx-node',
    writerLock: { schema: projectSchemaName(options, project), program, ...(chainId !== undefined && { chainId: String(chainId) }), ...(onLost && { onLost }) },
  });
}

/**
 * The project's store on an open database, for `idx-node` and `reindex` alike: a changed
 * schema.graphql (and for `idx-node`, given `deployment`, changed handlers) applied in place when
 * additive, else refused (or migrated with --allow-schema-migration) before any table is touched,
 * the entity tables made, and with `--multi-chain` this chain's own `_metadata`/`_poi` tables.
 */
export async function prepareProjectStore(
  db: Db,
  o: { model: SchemaModel; schema: string; historical: boolean; options: NodeOptions; chainId?: string; logger: Logger; deployment?: DeploymentRecord },
): Promise<EntityStore> {
  const { model, schema, historical, chainId } = o;
  const { timestampField, allowSchemaMigration, changesIndex } = o.options;
  if (chainId !== undefined && db.pglite !== undefined) {
    throw new IdxError(
      'MULTI_CHAIN_NEEDS_POSTGRES',
      '--multi-chain needs PostgreSQL (set DB_HOST and the other DB_* variables): with the embedded database every project folder has a database of its own, so projects cannot share a schema',
    );
  }
  await applySchemaChange(db.kysely, model, {
    schema,
    historical,
    timestampField,
    changesIndex,
    allowMigration: allowSchemaMigration,
    logger: o.logger,
    ...(o.deployment !== undefined && { redeploy: { deployment: o.deployment, ...(chainId !== undefined && { chainId }) } }),
  });
  await prepareProjectSchema(db.kysely, model, { schema, historical, timestampField, changesIndex });
  if (chainId !== undefined) await prepareChainTables(db.kysely, model, { schema, chainId });
  return createEntityStore({ db: db.kysely, schema, model, historical, timestampField, ...(chainId !== undefined && { chainId }) });
}

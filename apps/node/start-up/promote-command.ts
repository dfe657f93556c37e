import { join } from 'node:path';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { createDb, type Db } from '../../../infra/postgres/create-db.ts';
import { promoteDeployment } from '../../../infra/postgres/deployment-pointer.ts';
import { promoteFolder, servedFolder } from '../../../infra/postgres/deployment-file.ts';
import { openPgliteSocketDb } from '../../../infra/postgres/pglite-socket-endpoint.ts';
import { execute, qualified } from '../../../infra/postgres/sql.ts';
import { loadProject } from '../../../infra/project/load-project.ts';
import type { NodeOptions } from './node-options.ts';
import { projectSchemaName } from './open-project-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Where a version is promoted to: a schema of the PostgreSQL database that holds the pointer rows,
 * or on the embedded database a schema in a project folder, the pointer a file of the served folder.
 */
export type PromotionTarget = { kind: 'postgres'; db: Db; schema: string } | { kind: 'folder'; folder: string; schema: string };

/**
 * Points the deployment at the target and logs the move. Shared by `idx-node promote` and
 * `--promote`, which calls it once caught up.
 */
export async function promote(target: PromotionTarget, name: string, logger: Logger): Promise<void> {
  const { schema } = target;
  // the schema served before, and how the log line names it when it is another version
  let previous: string | null;
  let named: string | undefined;
  let where = '';
  if (target.kind === 'postgres') {
    previous = (await promoteDeployment(target.db, name, schema)).previous;
    if (previous !== null && previous !== schema) named = `"${previous}"`;
  } else {
    const was = (await promoteFolder(name, { folder: target.folder, schema })).previous;
    previous = was?.schema ?? null;
    where = ` in ${target.folder}`;
    if (was !== null && (was.folder !== target.folder || was.schema !== schema)) named = `"${was.schema}" in ${was.folder}`;
  }
  const was = named === undefined ? '' : ` (was ${named}, kept until idx-node force-clean drops it)`;
  logger.child('deploy').info(`promoted: the deployment "${name}" now serves schema "${schema}"${where}${was}`, {
    event: 'promoted',
    deployment: name,
    schema,
    ...(previous !== null && { previous }),
    ...(target.kind === 'folder' && { folder: target.folder }),
  });
}

/** Where a schema records that `--promote` did its work: `{ name, at }`. */
const PROMOTED_KEY = 'idxPromoted';

/**
 * `--promote <name>`, once caught up: promotes, and records it in the schema's `_metadata`, so a
 * later start of the same node (a restart, a rescheduled pod) does not undo a rollback an operator
 * made with `idx-node promote` in the meantime.
 */
export async function promoteOnce(
  target: PromotionTarget,
  store: Pick<EntityStore, 'getMetadata' | 'setMetadata'>,
  name: string,
  logger: Logger,
): Promise<void> {
  const done = (await store.getMetadata(PROMOTED_KEY)) as { name?: unknown } | undefined;
  if (done?.name === name) {
    const by = target.kind === 'postgres' ? `--db-schema ${target.schema}` : `-f ${target.folder} --db-schema ${target.schema}`;
    logger
      .child('deploy')
      .info(
        `--promote: schema "${target.schema}" was promoted to "${name}" at an earlier start; not again (idx-node promote --name ${name} ${by} does it by hand)`,
      );
    return;
  }
  await promote(target, name, logger);
  await store.setMetadata({ [PROMOTED_KEY]: { name, at: new Date().toISOString() } });
}

/**
 * The deployment `--promote` names, checked before indexing starts: on PostgreSQL a name; on the
 * embedded database the folder idx-query serves, as an absolute path (that folder must exist).
 */
export async function deploymentName(name: string, env: Env): Promise<string> {
  return env.DB_HOST ? name : servedFolder(name);
}

/**
 * `idx-node promote --name <name> --db-schema <schema>`: the switch by hand, e.g. back to the
 * previous version. On the embedded database `--name` is the served folder and `-f` the version's
 * folder, whose node must be running (its database is read through it, as idx-query will).
 */
export async function promoteCommand(name: string, options: NodeOptions, logger: Logger, env: Env): Promise<void> {
  const project = options.dbSchema === undefined || !env.DB_HOST ? await loadProject(options.idx ?? process.cwd()) : undefined;
  const schema = project !== undefined ? projectSchemaName(options, project) : options.dbSchema!;
  if (!env.DB_HOST) {
    const served = await servedFolder(name);
    await requireIndexed(project!.root, schema);
    await promote({ kind: 'folder', folder: project!.root, schema }, served, logger);
    return;
  }
  const db = await createDb({
    env,
    ssl: { ca: options.pgCa, cert: options.pgCert, key: options.pgKey },
    applicationName: 'idx-node promote',
  });
  try {
    await promote({ kind: 'postgres', db, schema }, name, logger);
  } finally {
    await db.close();
  }
}

/** On the embedded database: the version's node serves its database, and the schema holds an indexed project. */
async function requireIndexed(folder: string, schema: string): Promise<void> {
  const db = await openPgliteSocketDb(join(folder, '.idx-data'), { applicationName: 'idx-node promote' });
  try {
    const [row] = await execute<{ ok: boolean }>(db.kysely, `select to_regclass($1) is not null as ok`, [qualified(schema, '_metadata')]);
    if (row?.ok !== true) throw new IdxError('PROJECT_NOT_INDEXED', `cannot promote schema "${schema}" of ${folder}: no project is indexed there`);
  } finally {
    await db.close();
  }
}

import { basename } from 'node:path';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { createDb, type Db } from '../../../infra/postgres/create-db.ts';
import { promoteDeployment, type DeploymentPointer } from '../../../infra/postgres/deployment-pointer.ts';
import { loadProject } from '../../../infra/project/load-project.ts';
import type { NodeOptions } from './node-options.ts';
import { checkedSchemaName } from './open-project-store.ts';

type Env = Readonly<Record<string, string | undefined>>;

/**
 * Points the deployment at the schema and logs the move. Shared by `idx-node promote` and
 * `--promote`, which calls it once caught up.
 */
export async function promote(db: Db, name: string, schema: string, logger: Logger): Promise<DeploymentPointer> {
  const pointer = await promoteDeployment(db, name, schema);
  const was = pointer.previous === null || pointer.previous === schema ? '' : ` (was "${pointer.previous}", kept until idx-node force-clean drops it)`;
  logger.child('deploy').info(`promoted: the deployment "${name}" now serves schema "${schema}"${was}`, {
    event: 'promoted',
    deployment: name,
    schema,
    ...(pointer.previous !== null && { previous: pointer.previous }),
  });
  return pointer;
}

/** Where a schema records that `--promote` did its work: `{ name, at }`. */
const PROMOTED_KEY = 'idxPromoted';

/**
 * `--promote <name>`, once caught up: promotes, and records it in the schema's `_metadata`, so a
 * later start of the same node (a restart, a rescheduled pod) does not undo a rollback an operator
 * made with `idx-node promote` in the meantime.
 */
export async function promoteOnce(
  db: Db,
  store: Pick<EntityStore, 'getMetadata' | 'setMetadata'>,
  name: string,
  schema: string,
  logger: Logger,
): Promise<void> {
  const done = (await store.getMetadata(PROMOTED_KEY)) as { name?: unknown } | undefined;
  if (done?.name === name) {
    logger
      .child('deploy')
      .info(
        `--promote: schema "${schema}" was promoted to "${name}" at an earlier start; not again (idx-node promote --name ${name} --db-schema ${schema} does it by hand)`,
      );
    return;
  }
  await promote(db, name, schema, logger);
  await store.setMetadata({ [PROMOTED_KEY]: { name, at: new Date().toISOString() } });
}

/**
 * The pointer lives beside the projects' schemas in one database that idx-query and every node
 * reach: PostgreSQL. The embedded database is a project folder's own, opened by its node alone.
 */
export function requirePostgres(env: Env, what: string): void {
  if (!env.DB_HOST)
    throw new IdxError(
      'OPTION_NOT_AVAILABLE',
      `${what} needs PostgreSQL (set DB_HOST and the other DB_* variables): the embedded database of a project folder is opened by its own node only, so two versions cannot be indexed side by side in it`,
    );
}

/** `idx-node promote --name <name> --db-schema <schema>`: the switch by hand, e.g. back to the previous version. */
export async function promoteCommand(name: string, options: NodeOptions, logger: Logger, env: Env): Promise<void> {
  requirePostgres(env, 'idx-node promote');
  let schema = options.dbSchema;
  if (schema === undefined) {
    const project = await loadProject(options.idx!);
    schema = checkedSchemaName(options, options.idxName ?? basename(project.root), `the project folder ${project.root}`);
  }
  const db = await createDb({
    env,
    ssl: { ca: options.pgCa, cert: options.pgCert, key: options.pgKey },
    applicationName: 'idx-node promote',
  });
  try {
    await promote(db, name, schema, logger);
  } finally {
    await db.close();
  }
}

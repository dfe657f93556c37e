import { join, resolve } from 'node:path';
import type { Db } from '../../infra/postgres/create-db.ts';
import { readDeploymentFile, watchDeploymentFile } from '../../infra/postgres/deployment-file.ts';
import { DEPLOYMENTS_CHANNEL } from '../../infra/postgres/deployment-pointer.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { createNotifyListener } from '../../infra/postgres/notify-listener.ts';
import { openPgliteSocketDb } from '../../infra/postgres/pglite-socket-endpoint.ts';
import { pointerRowFollower, type DeploymentFollower, type Placement } from './query-service.ts';

/**
 * PostgreSQL: the pointer row, and promotions heard at once by a LISTEN on the primary (where the
 * node's NOTIFY happen), on a connection of its own; it reconnects by itself, and the query
 * service's timer covers what a reconnect missed.
 */
export function listenedPointerFollower(db: Db, name: string, logger: Logger): DeploymentFollower {
  return {
    ...pointerRowFollower(db, name),
    async listen(heard) {
      const log = logger.child('deployments');
      const listener = await createNotifyListener({
        connection: { ...db.connection!, application_name: 'idx-query-deployments' },
        onError: (err) => log.warn(`LISTEN connection for promotions: ${err.message}`),
        onReconnect: (attempt) => log.info(`LISTEN connection for promotions: reconnecting (attempt ${attempt})`),
      });
      const stop = await listener.subscribe(DEPLOYMENTS_CHANNEL, (payload) => {
        if ((payload as unknown as { name?: unknown }).name === name) heard();
      });
      return async () => {
        await stop();
        await listener.close();
      };
    },
  };
}

export interface FolderFollowerOptions {
  /** the folder idx-query serves (`-f`): its pointer file names the version served */
  folder: string;
  /** `-n`: the schema served while the folder has no pointer */
  name: string;
  /** the database run-query opened (and closes): `home`'s */
  db: Db;
  home: string;
  /** opens another folder's embedded database, through its node */
  open(folder: string): Promise<Db>;
  logger: Logger;
}

/**
 * The embedded database: each version is indexed in a folder of its own, and the served folder's
 * pointer file says which (deployment-file.ts). A move to another folder opens that folder's
 * database; the one left is closed when the query service releases it.
 */
export function folderFollower(options: FolderFollowerOptions): DeploymentFollower {
  const { folder, db: homeDb } = options;
  const home = resolve(options.home);
  const at = (schema: string, db: Db, project: string): Placement => ({ schema, db, embeddedProject: project });
  return {
    async locate(current) {
      const pointer = await readDeploymentFile(folder);
      const target = pointer?.live ?? { folder: resolve(folder), schema: options.name };
      const where = resolve(target.folder);
      if (current?.embeddedProject === where) return current.schema === target.schema ? current : at(target.schema, current.db, where);
      if (where === home) return at(target.schema, homeDb, where);
      return at(target.schema, await options.open(where), where);
    },
    async listen(heard) {
      const log = options.logger.child('deployments');
      const stop = watchDeploymentFile(folder, heard, (err) => log.warn(`watching ${join(folder, '.idx-data')} for promotions: ${err.message}`));
      return async () => stop();
    },
    async release(placement) {
      if (placement.db !== homeDb) await placement.db.close();
    },
  };
}

/** The folder whose database idx-query opens first: the one the served folder points at, else itself. */
export async function firstFolder(folder: string): Promise<string> {
  return (await readDeploymentFile(folder))?.live.folder ?? folder;
}

export const openFolderDb = (maxConnections: number, onPoolError: (err: Error) => void) => (folder: string) =>
  openPgliteSocketDb(join(folder, '.idx-data'), { maxConnections, applicationName: 'idx-query', onPoolError });

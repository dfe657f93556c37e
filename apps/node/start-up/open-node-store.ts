import { join } from 'node:path';
import type { EntityStore } from '../../../domain/entities/entity-store.ts';
import type { IdxError } from '../../../domain/errors.ts';
import { createCsvExporter, type CsvExporter } from '../../../infra/csv/create-csv-exporter.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { Db } from '../../../infra/postgres/create-db.ts';
import { createAnalyzeAfterWrites } from '../../../infra/postgres/analyze-after-writes.ts';
import { createEntityStore } from '../../../infra/postgres/create-entity-store.ts';
import { createDiskSpaceGuard, type DiskSpaceGuard, type DiskSpaceGuardOptions } from '../../../infra/postgres/disk-space-guard.ts';
import { dropNotifyTriggers, installNotifyTriggers } from '../../../infra/postgres/notify-triggers.ts';
import { publishPgliteSocket, type PublishedPgliteSocket } from '../../../infra/postgres/pglite-socket-endpoint.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import { projectDeployment } from '../../../infra/project/project-deployment.ts';
import type { ProjectFiles } from '../../../infra/project/read-project-files.ts';
import { projectStartHeight } from '../../../domain/project/project-model.ts';
import type { NodeOptions } from './node-options.ts';
import { openProjectDb, prepareProjectStore } from './open-project-store.ts';
import { deploymentName, promoteOnce, type PromotionTarget } from './promote-command.ts';

export interface NodeStoreInput {
  options: NodeOptions;
  project: LoadedProject;
  files: ProjectFiles;
  schema: string;
  env: Readonly<Record<string, string | undefined>>;
  logger: Logger;
  /** the chain's identity, recorded in `_metadata` */
  chain: { chainId: string; genesisHash: string; specName: string; checkStoredGenesis(stored: string): void };
  version: string;
  diskGuard?: Omit<DiskSpaceGuardOptions, 'dir'>;
  /** the writer lock's connection broke: another writer may start */
  onLockLost: (err: IdxError) => void;
}

/**
 * The node's side of the database: the writer lock, the entity tables (schema changes checked
 * first), `_metadata` for this chain, the subscription triggers, the CSV exporter and, embedded,
 * the socket idx-query reads through. `close()` releases all of it, in any state.
 */
export async function openNodeStore(input: NodeStoreInput) {
  const { options, project, files, schema, logger } = input;
  const log = logger.child('node');
  const historical = !options.disableHistorical;
  let db: Db | undefined;
  let guard: DiskSpaceGuard | undefined;
  let socket: PublishedPgliteSocket | undefined;
  let analyze: ReturnType<typeof createAnalyzeAfterWrites> | undefined;
  const close = async () => {
    await analyze?.close().catch(() => undefined);
    await socket?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await guard?.close();
  };
  try {
    db = await openProjectDb(options, project, input.env, 'idx-node', input.onLockLost);
    const embeddedOnDisk = db.pglite !== undefined && !db.pglite.dataDir?.startsWith('memory://');
    // Embedded: a full disk would make PGlite spin instead of failing (disk-space-guard.ts).
    if (embeddedOnDisk) {
      guard = createDiskSpaceGuard({ dir: join(project.root, '.idx-data'), ...input.diskGuard });
      await guard.check();
    }
    const chainId = options.multiChain ? input.chain.chainId : undefined;
    const deployment = projectDeployment(project, files);
    const prepared = await prepareProjectStore(db, { model: files.model, schema, historical, options, chainId, logger, deployment });
    // --subscription: NOTIFY triggers for idx-query's subscriptions; without it, any left by an earlier run go
    if (options.subscription) await installNotifyTriggers(db.kysely, files.model, { schema, historical });
    else await dropNotifyTriggers(db.kysely, schema);
    const stored = await prepared.getMetadata(['genesisHash']);
    if (typeof stored.genesisHash === 'string') input.chain.checkStoredGenesis(stored.genesisHash);
    await prepared.setMetadata({
      chain: input.chain.chainId,
      genesisHash: input.chain.genesisHash,
      specName: input.chain.specName,
      startHeight: projectStartHeight(project.manifest.dataSources),
      historicalStateEnabled: historical,
      indexerNodeVersion: input.version,
      schema: files.model,
      idxDeployment: deployment,
    });
    // The entity tables are shared: their model also goes where a single-chain schema keeps it, for idx-query.
    if (chainId !== undefined)
      await createEntityStore({ db: db.kysely, schema, model: files.model, historical, timestampField: options.timestampField }).setMetadata({
        schema: files.model,
      });
    log.info(`indexing ${project.manifestPath} into schema "${schema}" of ${db.description}`);
    let exporter: CsvExporter | undefined;
    if (options.csvOutDir !== undefined) {
      exporter = createCsvExporter({ dir: options.csvOutDir, model: files.model });
      const first = await exporter.restore(await prepared.getMetadata('csvExport'));
      if (first !== undefined) await prepared.setMetadata({ csvExport: first });
      log.info(`also writing entity rows to CSV files in ${options.csvOutDir}`);
    }
    // Embedded: PGlite lives in this process, so idx-query reaches it through this socket.
    if (embeddedOnDisk) {
      socket = await publishPgliteSocket(db, join(project.root, '.idx-data'), (err) => log.warn(`embedded database socket: ${err.message}`));
      const { host, port } = socket.endpoint;
      log.info(
        `serving the embedded database to idx-query on ${host.startsWith('/') ? join(host, `.s.PGSQL.${port}`) : `${host}:${port}`} ` +
          `(its owner only, with the logins in ${join(project.root, '.idx-data', 'idx-socket.json')})`,
      );
    }
    const checked = guard;
    // Embedded: PGlite has no autovacuum, so the node keeps the tables' statistics (rowCountEstimate) itself.
    const statisticsFailed = (err: Error) => log.warn(`could not update the tables' statistics: ${err.message}`);
    analyze = db.pglite !== undefined ? createAnalyzeAfterWrites({ db: db.kysely, schema, model: files.model, onError: statisticsFailed }) : undefined;
    const analyzed = analyze;
    const store: EntityStore =
      checked === undefined && analyzed === undefined
        ? prepared
        : {
            ...prepared,
            flush: async (batch) => {
              await checked?.check();
              await prepared.flush(batch);
              await analyzed?.afterFlush(batch.operations).catch(statisticsFailed);
            },
          };
    // what the indexing loop calls: the CSV files before each commit, --promote once caught up
    const { promote } = options;
    // the pointer: a row beside the schemas on PostgreSQL, a file in the served folder on the embedded database
    const target: PromotionTarget = db.pglite !== undefined ? { kind: 'folder', folder: project.root, schema } : { kind: 'postgres', db, schema };
    const hooks = {
      ...(exporter !== undefined && { exporter }),
      ...(promote !== undefined && { onCaughtUp: async () => promoteOnce(target, store, await deploymentName(promote, input.env), logger) }),
    };
    return { store, db: db.kysely, deployment, exporter, historical, hooks, close };
  } catch (err) {
    await close();
    throw err;
  }
}

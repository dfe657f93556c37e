import type { Logger } from '../../../infra/logging/create-logger.ts';
import { dropChainData } from '../../../infra/postgres/chain-tables-ddl.ts';
import { dropProjectSchema } from '../../../infra/postgres/prepare-project-schema.ts';
import { deploymentsServing } from '../../../infra/postgres/deployment-pointer.ts';
import { foldersServing } from '../../../infra/postgres/deployment-file.ts';
import { IdxError } from '../../../domain/errors.ts';
import { findMultichain, loadProject } from '../../../infra/project/load-project.ts';
import { withRunnerOptions } from './runner-options.ts';
import { readProjectFiles } from '../../../infra/project/read-project-files.ts';
import type { NodeOptions } from './node-options.ts';
import { rewindProject } from '../indexing/rewind-project.ts';
import { multichainSchemaName, requireMultiChainFlag } from './run-multichain.ts';
import { openProjectDb, prepareProjectStore, projectSchemaName } from './open-project-store.ts';
import { projectStartHeight } from '../../../domain/project/project-model.ts';

type Env = Readonly<Record<string, string | undefined>>;

/** `idx-node force-clean`: drops the project's schema with every table and all indexed data. */
export async function forceClean(options: NodeOptions & { idx: string }, logger: Logger, env: Env): Promise<void> {
  const multichain = await findMultichain(options.idx);
  if (multichain !== undefined) {
    // every chain's rows and tables go, one chain at a time, as each chain's own force-clean would
    requireMultiChainFlag(options, multichain, "remove all its chains' data");
    const dbSchema = multichainSchemaName(options, multichain);
    for (const idx of multichain.projectPaths) await forceClean({ ...options, idx, dbSchema }, logger, env);
    return;
  }
  const project = await loadProject(options.idx);
  const schema = projectSchemaName(options, project);
  const db = await openProjectDb(options, project, env, 'idx-node force-clean');
  try {
    const chainId = options.multiChain ? project.manifest.network?.chainId : undefined;
    if (chainId !== undefined) {
      // Other chains index into the same schema: only this chain's rows and tables go.
      await dropChainData(db.kysely, (await readProjectFiles(project)).model, { schema, chainId });
      logger.child('node').info(`force-clean: removed chain ${chainId}'s data from the shared schema "${schema}" of ${db.description}`);
      return;
    }
    // blue/green: the schema a deployment serves stays until another is promoted in its place
    const embedded = db.pglite !== undefined;
    const serving = embedded ? await foldersServing({ folder: project.root, schema }) : await deploymentsServing(db.kysely, schema);
    if (serving.length > 0)
      throw new IdxError(
        'DEPLOYMENT_LIVE',
        `force-clean: schema "${schema}" is served as the deployment ${serving.map((n) => `"${n}"`).join(', ')}; promote another ${embedded ? 'version' : 'schema'} first (idx-node promote --name ${serving[0]} ${embedded ? '-f <folder>' : '--db-schema <schema>'})`,
      );
    await dropProjectSchema(db.kysely, schema);
    logger.child('node').info(`force-clean: dropped schema "${schema}" and all its data from ${db.description}`);
  } finally {
    await db.close();
  }
}

/**
 * `idx-node reindex --targetHeight=N`: removes everything indexed above N (entity versions,
 * `_poi`, data sources created later, unfinalized-block hashes, metadata) so the next start indexes from N + 1. Below the start
 * height there is nothing to keep, so it force-cleans.
 */
export async function reindex(options: NodeOptions & { idx: string }, targetHeight: number, logger: Logger, env: Env): Promise<void> {
  const log = logger.child('node');
  const multichain = await findMultichain(options.idx);
  if (multichain !== undefined) {
    // Heights of different chains are not comparable: one target height cannot serve them all.
    throw new IdxError(
      'MULTICHAIN_REINDEX_ONE_CHAIN',
      `reindex rewinds one chain: give its manifest, e.g. idx-node reindex -f ${multichain.projectPaths[0]} --multi-chain --db-schema=${multichainSchemaName(options, multichain)} --targetHeight=${targetHeight}`,
    );
  }
  const project = await loadProject(options.idx);
  // a project whose manifest turns history off has nothing to rewind
  withRunnerOptions(options, project.manifest, project.manifestPath, 'reindex');
  const startHeight = projectStartHeight(project.manifest.dataSources);
  if (targetHeight < startHeight) {
    log.info(`reindex: ${targetHeight} is below the start height ${startHeight}; force-cleaning instead`);
    return forceClean(options, logger, env);
  }
  const files = await readProjectFiles(project);
  const schema = projectSchemaName(options, project);
  const db = await openProjectDb(options, project, env, 'idx-node reindex');
  try {
    // Rewinding with a changed schema.graphql would rewind tables the model no longer describes: prepareProjectStore refuses it.
    const chainId = options.multiChain ? project.manifest.network?.chainId : undefined;
    const store = await prepareProjectStore(db, { model: files.model, schema, historical: true, options, chainId, logger: log });
    const meta = await store.getMetadata(['lastProcessedHeight']);
    const last = typeof meta.lastProcessedHeight === 'number' ? meta.lastProcessedHeight : undefined;
    if (last !== undefined && last <= targetHeight) {
      log.info(`reindex: indexing stands at ${last}, not above ${targetHeight}; nothing to remove`);
      return;
    }
    const started = Date.now();
    await rewindProject(store, targetHeight);
    log.info(`reindex: removed the data above block ${targetHeight} in ${Date.now() - started} ms; the next start indexes from ${targetHeight + 1}`);
  } finally {
    await db.close();
  }
}

import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { basename, join } from 'node:path';
import { IdxError } from '../../../domain/errors.ts';
import { bypassedHeights } from '../../../domain/project/bypass-blocks.ts';
import { withRunnerOptions } from './runner-options.ts';
import { publishServiceUrl } from '../../../infra/http/service-url-file.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { DiskSpaceGuardOptions } from '../../../infra/postgres/disk-space-guard.ts';
import { findMultichain, loadProject, type LoadedProject } from '../../../infra/project/load-project.ts';
import { readProjectFiles } from '../../../infra/project/read-project-files.ts';
import { dictionaryUrls } from './dictionary-urls.ts';
import { familyOfKinds } from '../../../domain/chains/chain-family.ts';
import { nodeFamilies, nodeVariants, type ConnectChainInput, type NodeFamily, type NodeVariant, type NodeVariantName } from '../families/registry.ts';
import { createIndexer, type IndexerSettings } from '../indexing/indexer.ts';
import { createIndexerStatus, type IndexerStatus } from '../indexing/indexer-status.ts';
import { recordingProblems, type LoggedProblem } from '../http/last-problem.ts';
import { createNodeStatusPage } from '../http/node-status-page.ts';
import { DEFAULT_BATCH_SIZE, networkEndpoints, type NodeOptions } from './node-options.ts';
import { openNodeStore } from './open-node-store.ts';
import { deploymentName } from './promote-command.ts';
import { withWarmHeads } from '../indexing/warm-heads.ts';
import { projectSchemaName } from './open-project-store.ts';
import { progressLine } from '../indexing/progress-line.ts';
import { runMultichain } from './run-multichain.ts';
import { serveNodeHttp, type NodeFacts } from '../http/serve-node-http.ts';
import { startMapping } from './start-mapping.ts';
import { createRpcCacheLayer, rpcCacheRoot } from '../families/rpc-cache-layer.ts';
import type { Kysely } from 'kysely';
import type { ChainHeads } from '../../../domain/blocks/chain-heads.ts';
import { finalizedHeight } from '../../../domain/blocks/finality.ts';
import type { DataSource } from '../../../domain/project/project-model.ts';
import type { ProjectFiles } from '../../../infra/project/read-project-files.ts';
import type { SchemaModel } from '../../../domain/entities/entity-model.ts';
import { recordHandlerAccess } from './record-handler-access.ts';
import { copyReused, finishReuse, refuseUnfinishedReuse, reuseCopied, prepareReuse, sourcesRunning, type ReuseState } from './reuse-schema.ts';

export interface RunNodeContext {
  options: NodeOptions;
  /** the node program (default `base`, idx-node): the families it runs, whether it honours --block-confirmations */
  variant?: NodeVariantName;
  logger: Logger;
  version: string;
  env: Readonly<Record<string, string | undefined>>;
  /** aborting stops indexing after the current block and a final flush */
  signal: AbortSignal;
  /** overrides for tests and benchmarks */
  settings?: Partial<IndexerSettings>;
  /** seconds between progress lines (default 5) */
  progressEverySeconds?: number;
  /** called once the HTTP server listens */
  onListening?: (port: number) => void;
  /** the embedded database's free-space margin and stall time (tests) */
  diskGuard?: Omit<DiskSpaceGuardOptions, 'dir'>;
}

const DEFAULT_BLOCK_CONFIRMATIONS = 200;
// Share of the heap limit in use, for --scale-batch-size.
const memoryPressure = () => {
  const heap = getHeapStatistics();
  return heap.used_heap_size / heap.heap_size_limit;
};

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest());

/** Start-up phase 1: the project, its network and its built files; nothing is opened yet. */
async function loadNodeProject(options: NodeOptions, project: LoadedProject, env: RunNodeContext['env']) {
  // --promote: on the embedded database the deployment is a folder, which must be there before indexing starts
  if (options.promote !== undefined) await deploymentName(options.promote, env);
  // the reused schema's rows are copied by the database itself: both schemas must be in one
  if (options.reuse !== undefined && (env.DB_HOST ?? '') === '') {
    throw new IdxError(
      'OPTION_NOT_AVAILABLE',
      `--reuse ${options.reuse} needs PostgreSQL (set DB_HOST): each embedded database holds one version of a project`,
    );
  }
  const network = project.manifest.network;
  if (network === undefined || network.endpoints.length === 0) {
    throw new IdxError('NETWORK_MISSING', `${project.manifestPath}: the manifest needs network.chainId and network.endpoint (or give --network-endpoint)`);
  }
  const files = await readProjectFiles(project);
  return { network, files, schema: projectSchemaName(options, project) };
}

/** The indexer's settings from the node's options. */
function indexerSettings(options: NodeOptions, variant: NodeVariant, projectId: string): IndexerSettings {
  return {
    batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
    flushAsync: options.storeCacheAsync,
    flushIntervalMs: options.storeFlushInterval * 1000,
    flushThreshold: options.storeCacheThreshold,
    flushUpperLimit: options.storeCacheUpperLimit,
    // The project's identity, not where it is stored: two runs into different schemas agree.
    ...(options.proofOfIndex && { proofOfIndex: { projectId, sha256 } }),
    unfinalizedBlocks: options.unfinalizedBlocks,
    blockConfirmations: variant.blockConfirmations ? options.blockConfirmations : DEFAULT_BLOCK_CONFIRMATIONS,
    ...(options.scaleBatchSize && { memoryPressure }),
    pollIntervalMs: 1000,
  };
}

/**
 * `idx-node`: loads the project, serves HTTP, checks the chain, opens the database, starts the
 * sandbox and indexes until stopped. Each phase fails with its own message, and whatever an
 * earlier phase opened is closed again, in reverse order.
 */
export async function runNode(ctx: RunNodeContext): Promise<void> {
  let lastProblem: LoggedProblem | undefined;
  // the status page shows the last warning or error, whichever part logged it
  const logger = ctx.options.statusPage ? recordingProblems(ctx.logger, (p) => (lastProblem = p)) : ctx.logger;
  const log = logger.child('node');
  if (ctx.options.idx === undefined) throw new IdxError('PROJECT_NOT_GIVEN', 'no project given: use -f, --idx <path> or -c, --config <file>');
  const multichain = await findMultichain(ctx.options.idx);
  if (multichain !== undefined) return runMultichain(ctx, multichain, runNode);
  const project = await loadProject(ctx.options.idx, { networkEndpoints: networkEndpoints(ctx.options) });
  const { options, applied } = withRunnerOptions(ctx.options, project.manifest, project.manifestPath);
  if (applied.length > 0) log.info(`the manifest's runner.node.options set ${applied.join(', ')} (a flag on the command line would win)`);
  const { network, files, schema } = await loadNodeProject(options, project, ctx.env);
  // the family's name is the kinds' (a refusal here comes before a port is taken)
  const variant = nodeVariants[ctx.variant ?? 'base'] as NodeVariant;
  const familyName = familyOfKinds(
    project.manifest.dataSources.map((d) => d.kind),
    project.manifestPath,
    variant.only === undefined ? undefined : { program: variant.program, family: variant.only },
  );
  const family = nodeFamilies[familyName];

  const status = createIndexerStatus();
  const facts: NodeFacts = {
    health: { healthy: false, error: 'starting' },
    genesisHash: undefined,
    specName: family.specName,
    chainSdkVersion: ctx.version,
    usingDictionary: false,
  };
  const startedAt = Date.now();
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (ctx.signal.aborted) stop.abort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  const closers: (() => unknown)[] = [() => ctx.signal.removeEventListener('abort', onAbort)];
  let lockLost: IdxError | undefined;
  const statusPage = options.statusPage
    ? createNodeStatusPage({
        status,
        project,
        name: options.idxName ?? project.manifest.name ?? basename(project.root),
        schema,
        version: ctx.version,
        startedAt,
        endpoints: network.endpoints.map((e) => e.url),
        live: () => ({
          health: facts.health,
          chain: { chain: network.chainId, specName: facts.specName },
          ...(lastProblem !== undefined && { lastProblem }),
        }),
      })
    : undefined;
  if (statusPage !== undefined) closers.push(statusPage.close);

  try {
    // Phase 2: /health and /meta answer from the start (a monitor sees "starting", then why it failed).
    const { url, port, close } = await serveNodeHttp({
      port: options.port,
      status,
      facts,
      statusPage,
      chainId: network.chainId,
      version: ctx.version,
      startedAt,
      log,
    });
    closers.push(close);
    ctx.onListening?.(port);

    // Phase 3: the chain, before the database: a wrong endpoint should fail at once.
    const { chain, heads } = await connectChain({
      family,
      network,
      project,
      options,
      log,
      logger,
      status,
      closers,
      signal: ctx.signal,
      version: ctx.version,
      env: ctx.env,
    });
    facts.genesisHash = chain.genesisHash;
    facts.specName = chain.specName;
    facts.chainSdkVersion = chain.chainSdkVersion;

    // Phase 4: the database, its writer lock, tables and metadata.
    const opened = await openNodeStore({
      options,
      project,
      files,
      schema,
      env: ctx.env,
      logger,
      chain: { chainId: network.chainId, genesisHash: chain.genesisHash, specName: chain.specName, checkStoredGenesis: chain.checkStoredGenesis },
      version: ctx.version,
      ...(ctx.diskGuard && { diskGuard: ctx.diskGuard }),
      onLockLost: (err) => {
        // Another writer may now start: stop after the current block rather than overlap with it.
        lockLost = err;
        facts.health = { healthy: false, error: err.message };
        log.error(err.message);
        stop.abort();
      },
    });
    closers.push(opened.close);
    // Embedded: idx-query on the same project finds the status page through the data folder.
    const dataDir = join(project.root, '.idx-data');
    if (existsSync(dataDir)) closers.push(await publishServiceUrl(dataDir, 'idx-node', { url, page: statusPage !== undefined }));

    // Phases 5 to 7: the sandbox, where ranges come from, and indexing until stopped.
    await indexProject({ ctx, options, variant, project, files, schema, opened, chain, heads, network, logger, status, facts, closers, signal: stop.signal });
    if (lockLost !== undefined) throw lockLost;
    log.info(`stopped after block ${status.lastProcessedHeight ?? '-'}`);
  } catch (err) {
    facts.health = { healthy: false, error: (err as Error).message };
    throw err;
  } finally {
    for (const close of closers.reverse()) await close();
  }
}

/** Phases 5 to 7 of runNode: with --reuse the unchanged handlers' rows copied, the sandbox, the fetcher, and indexing until `signal` aborts. */
async function indexProject(input: {
  ctx: RunNodeContext;
  options: NodeOptions;
  variant: NodeVariant;
  project: LoadedProject;
  files: ProjectFiles;
  schema: string;
  opened: Awaited<ReturnType<typeof openNodeStore>>;
  chain: Awaited<ReturnType<typeof connectChain>>['chain'];
  heads: ChainHeads;
  network: NonNullable<LoadedProject['manifest']['network']>;
  logger: Logger;
  status: IndexerStatus;
  facts: NodeFacts;
  closers: (() => unknown)[];
  signal: AbortSignal;
}): Promise<void> {
  const { ctx, options, variant, project, files, schema, opened, chain, heads, network, logger, status, facts, closers, signal } = input;
  const log = logger.child('node');
  // Phase 5: with --reuse, the unchanged handlers' rows copied; the sandbox with the project's mappings.
  const settings = { ...indexerSettings(options, variant, options.idxName ?? project.manifest.name ?? basename(project.root)), ...ctx.settings };
  const reuse = await reuseFor(options, { opened, model: files.model, schema, chain, heads, settings, log });
  // the reused rows are copied while the sandbox starts and the changed handlers run
  const copying = reuse === undefined || reuseCopied(reuse) ? undefined : settled(copyReused(opened.db, schema, reuse, files.model, log));
  const access = await recordHandlerAccess(opened.store);
  const mapping = await startMapping({
    options,
    project,
    files,
    store: access.store,
    chain,
    chainId: network.chainId,
    logger,
    onAccess: access.recorder.add,
    ...(reuse !== undefined && { filledElsewhere: reuse.plan.copy }),
  });
  closers.push(mapping.dispose);

  // Phase 6: where ranges come from.
  const dictionaries = await dictionaryUrls(options, network, chain.genesisHash, log);
  const fetcher = chain.fetcher(dictionaries, logger, (using) => (facts.usingDictionary = using));
  closers.push(() => fetcher.close());

  // Phase 7: index until stopped.
  const bypassList = project.manifest.network?.bypassBlocks;
  const bypassed = bypassedHeights(bypassList);
  if (bypassed !== undefined) log.info(`network.bypassBlocks: the handlers of ${bypassList!.join(', ')} do not run`);
  const indexerOf = (dataSources: readonly DataSource[], more: Partial<IndexerSettings>, hooks: typeof opened.hooks | undefined) =>
    createIndexer({
      source: heads,
      fetcher,
      store: access.store,
      cache: mapping.cache,
      runner: mapping.runner,
      dataSources,
      templates: project.manifest.templates,
      ...(bypassed !== undefined && { bypassed }),
      family: chain.family(files, mapping.processors),
      logger,
      status,
      ...hooks,
      settings: { ...settings, ...more },
    });
  facts.health = { healthy: true };
  await withProgressLines(status, logger, (ctx.progressEverySeconds ?? 5) * 1000, async () => {
    if (reuse !== undefined && !reuse.checked) {
      // the changed handlers alone up to the height the rows are copied to, then every handler from there
      const running = sourcesRunning(project.manifest.dataSources, reuse.plan.run);
      const copied = await alongside(
        copying,
        (stopped) => (running.length > 0 ? indexerOf(running, { stopAtHeight: reuse.height }, undefined).run(stopped) : undefined),
        signal,
      );
      if (signal.aborted || !copied) return;
      await finishReuse(opened.store, schema, reuse, access.recorder.record());
    }
    await indexerOf(project.manifest.dataSources, {}, opened.hooks).run(signal);
  });
}

/**
 * The family's chain over the manifest's endpoints, behind the RPC cache when one is set: the cache is
 * opened for the chain the endpoint proves to serve, and keeps answers once final as the indexer knows it.
 * With it, the chain's heads for the indexer, already asked for (warm-heads.ts).
 */
async function connectChain(
  input: Omit<ConnectChainInput, 'clientLayer' | 'rpcCache'> & {
    family: NodeFamily;
    logger: Logger;
    status: IndexerStatus;
    closers: (() => unknown)[];
    env: RunNodeContext['env'];
  },
) {
  const { family, options, status, closers } = input;
  const cacheRoot = rpcCacheRoot(options.rpcCache, input.env);
  const rpcCache =
    cacheRoot === undefined
      ? undefined
      : createRpcCacheLayer(cacheRoot, options.rpcCacheSize * 2 ** 20, family.cacheRules, () => status.finalizedHeight ?? -1, input.logger.child('rpc-cache'));
  const { network, project, log, signal, version } = input;
  const chain = await family.connect({ network, project, options, log, signal, version, ...(rpcCache && { clientLayer: rpcCache.layer, rpcCache }) });
  if (rpcCache !== undefined) {
    await rpcCache.bind(chain.genesisHash);
    closers.push(() => rpcCache.close());
  }
  // the heads asked now, answered while the database and the sandbox are prepared
  return { chain, heads: withWarmHeads(chain.source) };
}

/** `work`'s outcome, never rejecting: awaited later, its failure is not unhandled meanwhile */
const settled = <T>(work: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> =>
  work.then(
    (value) => ({ ok: true as const, value }),
    (error: unknown) => ({ ok: false as const, error }),
  );

/**
 * Runs `run` beside the copy of the reused rows (when one is under way): a failed copy stops the run,
 * a failed run waits for the copy to end; either failure is thrown. True when the copy is done.
 */
async function alongside(
  copying: ReturnType<typeof settled> | undefined,
  run: (signal: AbortSignal) => Promise<void> | undefined,
  signal: AbortSignal,
): Promise<boolean> {
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener('abort', onAbort, { once: true });
  try {
    const copy = copying?.then((outcome) => {
      if (!outcome.ok) stop.abort();
      return outcome;
    });
    const ran = await settled(run(stop.signal) ?? Promise.resolve());
    const outcome = await copy;
    if (outcome !== undefined && !outcome.ok) throw outcome.error;
    if (!ran.ok) throw ran.error;
    return !signal.aborted;
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
}

/** `--reuse`: the reused schema's rows copied into this one up to its final height, or the plan a restart goes on with (reuse-schema.ts). */
async function reuseFor(
  options: NodeOptions,
  input: {
    opened: Pick<Awaited<ReturnType<typeof openNodeStore>>, 'db' | 'store' | 'deployment'>;
    model: SchemaModel;
    schema: string;
    chain: { genesisHash: string };
    heads: ChainHeads;
    settings: IndexerSettings;
    log: Logger;
  },
): Promise<ReuseState | undefined> {
  const { opened, heads, settings } = input;
  if (options.reuse === undefined) {
    // without --reuse, a schema whose partial reindex has not finished would run the reused handlers again over copied rows
    await refuseUnfinishedReuse(opened.store, input.schema);
    return undefined;
  }
  return prepareReuse({
    db: opened.db,
    store: opened.store,
    from: options.reuse,
    to: input.schema,
    model: input.model,
    deployment: opened.deployment,
    genesisHash: input.chain.genesisHash,
    finalized: async () => finalizedHeight(await heads.bestHeight(), (await heads.finalizedHeight()) ?? undefined, settings.blockConfirmations),
    log: input.log,
  });
}

/** Runs `work` with a progress line (blocks/s, height, ETA) logged every `everyMs`. */
async function withProgressLines(status: IndexerStatus, logger: Logger, everyMs: number, work: () => Promise<void>): Promise<void> {
  let sample = { at: Date.now(), blocks: 0, events: 0 };
  const progress = setInterval(() => {
    const next = progressLine(status, sample, Date.now());
    sample = next.sample;
    logger.child('progress').info(next.line, next.fields);
  }, everyMs);
  progress.unref();
  try {
    await work();
  } finally {
    clearInterval(progress);
  }
}

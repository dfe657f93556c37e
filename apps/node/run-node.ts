import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { getHeapStatistics } from 'node:v8';
import { basename, join } from 'node:path';
import { keccak256, toBytes } from 'viem';
import { createStoreCache } from '../../domain/entities/store-cache.ts';
import { IdxError } from '../../domain/errors.ts';
import { createDictionaryClient } from '../../infra/dictionary/create-dictionary-client.ts';
import { resolveDictionaries } from '../../infra/dictionary/resolve-dictionaries.ts';
import { listenOnFreePort } from '../../infra/http/listen-on-free-port.ts';
import type { Logger } from '../../infra/logging/create-logger.ts';
import { createDb, type Db } from '../../infra/postgres/create-db.ts';
import { createEntityStore } from '../../infra/postgres/create-entity-store.ts';
import { createDiskSpaceGuard, type DiskSpaceGuard, type DiskSpaceGuardOptions } from '../../infra/postgres/disk-space-guard.ts';
import { dropNotifyTriggers, installNotifyTriggers } from '../../infra/postgres/notify-triggers.ts';
import { publishPgliteSocket, type PublishedPgliteSocket } from '../../infra/postgres/pglite-socket-endpoint.ts';
import { findMultichain, loadProject, type LoadedProject } from '../../infra/project/load-project.ts';
import { readProjectFiles } from '../../infra/project/read-project-files.ts';
import { createEthereumSource } from '../../infra/rpc/create-ethereum-source.ts';
import { createRpcClient } from '../../infra/rpc/create-rpc-client.ts';
import { RpcUnreachableError } from '../../infra/rpc/rpc-error.ts';
import { checkStoredGenesis, verifyChainRetrying } from '../../infra/rpc/verify-chain.ts';
import { createSandbox } from '../../infra/sandbox/create-sandbox.ts';
import { createCsvExporter, type CsvExporter } from '../../infra/csv/create-csv-exporter.ts';
import { openProjectDb, prepareProjectStore, projectSchemaName } from './open-project-store.ts';
import { createBlockExtrasLoader } from './block-extras.ts';
import { createMappingHost } from './create-mapping-host.ts';
import { createBlockScope } from './block-scope.ts';
import { createEthereumFamily } from './families/ethereum-family.ts';
import { metaDocument } from './node-meta.ts';
import { createNodeMetrics } from './node-metrics.ts';
import { createIndexer, type IndexerSettings } from './indexing/indexer.ts';
import { createIndexerStatus } from './indexer-status.ts';
import { runMultichain } from './run-multichain.ts';
import { createNodeHttpApp, type Health } from './node-http.ts';
import { DEFAULT_BATCH_SIZE, type NodeOptions, type NodeVariant } from './node-options.ts';
import { progressLine } from './progress-line.ts';
import { createDictionaryFetcher } from './dictionary-fetcher.ts';
import { createLocalFetcher, type RangeFetcher } from './range-fetcher.ts';
import { createWorkerFetcher } from './worker-fetcher.ts';
import { projectStartHeight } from '../../domain/project/project-model.ts';

export interface RunNodeContext {
  options: NodeOptions;
  /** `idx-node-ethereum` honours --block-confirmations; `idx-node` uses the default */
  variant?: NodeVariant;
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

const keccak = (text: string) => keccak256(toBytes(text));
const DEFAULT_BLOCK_CONFIRMATIONS = 200;
// Share of the heap limit in use, for --scale-batch-size.
const memoryPressure = () => {
  const heap = getHeapStatistics();
  return heap.used_heap_size / heap.heap_size_limit;
};

const sha256 = (data: Uint8Array) => new Uint8Array(createHash('sha256').update(data).digest());

/** Dictionaries to try, best first: from `--dictionary-resolver`, else `--network-dictionary`, else the manifest. */
async function dictionaryUrls(
  options: NodeOptions,
  network: { chainId: string; dictionary?: string | string[] },
  genesisHash: string,
  log: Logger,
): Promise<string[]> {
  if (options.dictionaryResolver !== undefined) {
    try {
      const urls = await resolveDictionaries(options.dictionaryResolver, { chainId: network.chainId, genesisHash }, options.dictionaryTimeout);
      if (urls.length === 0) log.warn(`the dictionary resolver knows no dictionary for chain ${network.chainId}: fetching everything from the chain`);
      return urls;
    } catch (err) {
      log.warn(`${(err as Error).message}: fetching everything from the chain`);
      return [];
    }
  }
  if (options.networkDictionary !== undefined) return [options.networkDictionary];
  return network.dictionary === undefined ? [] : [network.dictionary].flat();
}

/** `idx-node`: loads the project, connects the chain and the database, serves HTTP and indexes until stopped. */
export async function runNode(ctx: RunNodeContext): Promise<void> {
  const { options, logger } = ctx;
  const log = logger.child('node');
  if (options.idx === undefined) throw new IdxError('PROJECT_NOT_GIVEN', 'no project given: use -f, --idx <path> or -c, --config <file>');
  const multichain = await findMultichain(options.idx);
  if (multichain !== undefined) return runMultichain(ctx, multichain, runNode);
  const project = await loadProject(options.idx, { networkEndpoints: options.networkEndpoint });
  const network = project.manifest.network;
  if (network === undefined || network.endpoints.length === 0) {
    throw new IdxError('NETWORK_MISSING', `${project.manifestPath}: the manifest needs network.chainId and network.endpoint (or give --network-endpoint)`);
  }
  const files = await readProjectFiles(project);
  const schema = projectSchemaName(options, project);
  const historical = !options.disableHistorical;

  const status = createIndexerStatus();
  let health: Health = { healthy: false, error: 'starting' };
  const metrics = createNodeMetrics(status);

  // routeByRange: among several endpoints, idx-shard ones get the calls for the blocks they hold
  const rpc = {
    endpoints: network.endpoints.map((e) => ({ url: e.url, ...(e.headers && { headers: e.headers }) })),
    timeoutMs: 30_000,
    retries: 3,
    routeByRange: true,
  };
  const client = createRpcClient(rpc);
  const source = createEthereumSource(client);
  let genesisHash: string | undefined;
  let usingDictionary = false;
  const startedAt = Date.now();

  const server = createServer(
    createNodeHttpApp(
      {
        health: () => health,
        ready: () => status.caughtUp,
        meta: () =>
          metaDocument(status, {
            version: ctx.version,
            startedAt,
            chain: { chain: network.chainId, specName: 'ethereum', genesisHash, chainSdkVersion: ctx.version },
            apiConnected: health.healthy,
            usingDictionary,
          }),
      },
      metrics,
    ).callback(),
  );
  const port = await listenOnFreePort(server, options.port);
  log.info(`serving /health, /meta, /ready and /metrics on http://localhost:${port}`);
  ctx.onListening?.(port);

  let db: Db | undefined;
  let lockLost: IdxError | undefined;
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  if (ctx.signal.aborted) stop.abort();
  else ctx.signal.addEventListener('abort', onAbort, { once: true });
  let socket: PublishedPgliteSocket | undefined;
  let guard: DiskSpaceGuard | undefined;
  let fetcher: RangeFetcher | undefined;
  let sandbox: Awaited<ReturnType<typeof createSandbox>> | undefined;
  try {
    // The chain first: a wrong endpoint should fail at once, before the database is opened.
    const identity = await verifyChainRetrying(
      client,
      { chainId: network.chainId },
      {
        signal: ctx.signal,
        onRetry: (err, attempt, waitMs, attempts) => {
          const why = err instanceof RpcUnreachableError ? err.failures.map((f) => `${f.endpoint}: ${f.error}`).join('; ') : err.message;
          log.warn(`checking the chain failed (${why}); retrying in ${waitMs} ms (${attempt}/${attempts - 1})`);
        },
      },
    ).catch((err: unknown) => {
      if (err instanceof RpcUnreachableError) throw new IdxError('CHAIN_UNREACHABLE', `cannot reach the chain: ${err.message}`, { cause: err });
      throw err;
    });
    genesisHash = identity.genesisHash;
    db = await openProjectDb(options, project, ctx.env, 'idx-node', (err) => {
      // Another writer may now start: stop after the current block rather than overlap with it.
      lockLost = err;
      health = { healthy: false, error: err.message };
      log.error(err.message);
      stop.abort();
    });
    // Embedded: a full disk would make PGlite spin instead of failing (disk-space-guard.ts).
    if (db.pglite !== undefined && !db.pglite.dataDir?.startsWith('memory://')) {
      guard = createDiskSpaceGuard({ dir: join(project.root, '.idx-data'), ...ctx.diskGuard });
      await guard.check();
    }

    const chainId = options.multiChain ? network.chainId : undefined;
    const store = await prepareProjectStore(db, { model: files.model, schema, historical, options, chainId, logger });
    // --subscription: NOTIFY triggers for idx-query's subscriptions; without it, any left by an earlier run go
    if (options.subscription) await installNotifyTriggers(db.kysely, files.model, { schema, historical });
    else await dropNotifyTriggers(db.kysely, schema);
    const stored = await store.getMetadata(['genesisHash']);
    // verifyChain already asked every endpoint; the stored genesis only needs comparing with its answer.
    if (typeof stored.genesisHash === 'string') checkStoredGenesis(stored.genesisHash, identity.genesisHash, client.endpoints.join(', '));
    await store.setMetadata({
      chain: network.chainId,
      genesisHash,
      specName: 'ethereum',
      startHeight: projectStartHeight(project.manifest.dataSources),
      historicalStateEnabled: historical,
      indexerNodeVersion: ctx.version,
      schema: files.model,
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
      const first = await exporter.restore(await store.getMetadata('csvExport'));
      if (first !== undefined) await store.setMetadata({ csvExport: first });
      log.info(`also writing entity rows to CSV files in ${options.csvOutDir}`);
    }
    // Embedded: PGlite lives in this process, so idx-query reaches it through this socket (DECISIONS.md).
    if (db.pglite !== undefined && !db.pglite.dataDir?.startsWith('memory://')) {
      socket = await publishPgliteSocket(db, join(project.root, '.idx-data'), (err) => log.warn(`embedded database socket: ${err.message}`));
      const { host, port: dbPort } = socket.endpoint;
      log.info(`serving the embedded database to idx-query on ${host.startsWith('/') ? join(host, `.s.PGSQL.${dbPort}`) : `${host}:${dbPort}`}`);
    }

    const cache = createStoreCache(store, {
      queryLimit: options.queryLimit,
      getCacheSize: options.storeCacheAsync ? 0 : options.storeGetCacheSize,
      model: files.model,
    });
    const scope = createBlockScope();
    const extras = createBlockExtrasLoader(source, { prefetch: options.unsafe, onLearn: (message) => log.info(message) });
    sandbox = await createSandbox({
      code: files.code,
      ...(files.sourceMap !== undefined && { sourceMap: files.sourceMap }),
      fileName: files.codeFile,
      unsafe: options.unsafe,
      timeoutMs: options.timeout,
      queryLimit: options.queryLimit,
      // With --multi-chain other nodes write the same schema: the sandbox may not remember entities.
      ...(options.multiChain && { readCacheSize: 0 }),
      host: createMappingHost({
        cache,
        source,
        request: (method, params) => client.request(method, params),
        logger,
        chainId: network.chainId,
        currentHeight: scope.height,
        createDynamicDatasource: scope.createDataSource,
        extras,
      }),
    });
    const missing = [...project.manifest.dataSources, ...project.manifest.templates]
      .flatMap((ds) => ds.mapping.handlers.map((h) => h.handler))
      .filter((h) => !sandbox!.handlers.includes(h));
    if (missing.length > 0) {
      throw new IdxError(
        'HANDLER_NOT_FOUND',
        `${files.codeFile} does not export ${[...new Set(missing)].join(', ')}, named as handlers in ${project.manifestPath}; export them from src/index.ts and run idx build`,
      );
    }

    const fetchOptions = { verifyReceipts: options.verifyReceipts };
    fetcher = options.workers > 0 ? createWorkerFetcher(options.workers, rpc, fetchOptions) : createLocalFetcher(source, fetchOptions);
    const dictionaries = await dictionaryUrls(options, network, identity.genesisHash, log);
    if (dictionaries.length > 0) {
      fetcher = createDictionaryFetcher(fetcher, {
        dictionaries: dictionaries.map((url) => createDictionaryClient({ url, timeoutSeconds: options.dictionaryTimeout })),
        chain: { chainId: network.chainId, genesisHash: identity.genesisHash },
        logger: logger.child('dictionary'),
        onUse: (using) => (usingDictionary = using),
      });
    }
    if (options.workers > 0) log.info(`fetching with ${options.workers} worker thread${options.workers === 1 ? '' : 's'}`);
    const checked = guard;
    const indexer = createIndexer({
      source,
      fetcher,
      store: checked === undefined ? store : { ...store, flush: async (batch) => (await checked.check(), store.flush(batch)) },
      cache,
      runner: scope.runner(sandbox),
      dataSources: project.manifest.dataSources,
      templates: project.manifest.templates,
      family: createEthereumFamily({ abiOf: files.abiOf, keccak256: keccak, extras }),
      logger,
      status,
      ...(exporter !== undefined && { exporter }),
      settings: {
        batchSize: options.batchSize ?? DEFAULT_BATCH_SIZE,
        flushAsync: options.storeCacheAsync,
        flushIntervalMs: options.storeFlushInterval * 1000,
        flushThreshold: options.storeCacheThreshold,
        // The project's identity, not where it is stored: two runs into different schemas agree.
        ...(options.proofOfIndex && { proofOfIndex: { projectId: options.idxName ?? project.manifest.name ?? basename(project.root), sha256 } }),
        unfinalizedBlocks: options.unfinalizedBlocks,
        blockConfirmations: ctx.variant === 'ethereum' ? options.blockConfirmations : DEFAULT_BLOCK_CONFIRMATIONS,
        ...(options.scaleBatchSize && { memoryPressure }),
        pollIntervalMs: 1000,
        ...ctx.settings,
      },
    });

    health = { healthy: true };
    let sample = { at: Date.now(), blocks: 0, events: 0 };
    const progress = setInterval(
      () => {
        const next = progressLine(status, sample, Date.now());
        sample = next.sample;
        logger.child('progress').info(next.line, next.fields);
      },
      (ctx.progressEverySeconds ?? 5) * 1000,
    );
    progress.unref();
    try {
      await indexer.run(stop.signal);
    } finally {
      clearInterval(progress);
    }
    if (lockLost !== undefined) throw lockLost;
    log.info(`stopped after block ${status.lastProcessedHeight ?? '-'}`);
  } catch (err) {
    health = { healthy: false, error: (err as Error).message };
    throw err;
  } finally {
    ctx.signal.removeEventListener('abort', onAbort);
    sandbox?.dispose();
    await fetcher?.close();
    await socket?.close().catch(() => undefined);
    await db?.close().catch(() => undefined);
    await guard?.close();
    // Keep-alive clients (a monitor polling /meta) would hold close() open for ever.
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  }
}

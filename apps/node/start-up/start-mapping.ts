import { didYouMean } from '../../../domain/closest-name.ts';
import { createStoreCache, type StoreCacheBooks } from '../../../domain/entities/store-cache.ts';
import type { EntityData, EntityStore } from '../../../domain/entities/entity-store.ts';
import { IdxError, ValidationError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import type { LoadedProject } from '../../../infra/project/load-project.ts';
import type { ProjectFiles } from '../../../infra/project/read-project-files.ts';
import { createSandbox } from '../../../infra/sandbox/create-sandbox.ts';
import { READ } from '../../../infra/sandbox/isolate/access-log.ts';
import { createBlockScope } from '../indexing/block-scope.ts';
import type { AnyNodeChain } from '../families/node-chain.ts';
import type { NodeOptions } from './node-options.ts';

/**
 * The store cache and the sandbox running the project's mappings, their chain reads going to
 * `chain`; refused when the bundle lacks a handler the manifest names.
 */
export async function startMapping(input: {
  options: NodeOptions;
  project: LoadedProject;
  files: ProjectFiles;
  store: EntityStore;
  chain: AnyNodeChain;
  chainId: string;
  logger: Logger;
  /** which entity types a handler read (1) or wrote (2) for the first time (record-handler-access.ts) */
  onAccess?: (entries: readonly (readonly [string, string, number])[]) => void;
  /** entity types another writer fills while this node runs (`--reuse`'s copy) */
  filledElsewhere?: readonly string[];
}) {
  const { options, project, files, chain } = input;
  // the types this node alone writes, from nothing: their absent ids are known without a read (known-ids.ts);
  // with --multi-chain every type has other writers
  const freshEntities = options.multiChain ? [] : (await input.store.emptyEntities()).filter((e) => !input.filledElsewhere?.includes(e));
  input.store.writesAlone(freshEntities);
  const cache = createStoreCache(input.store, {
    queryLimit: options.queryLimit,
    getCacheSize: options.storeCacheAsync ? 0 : options.storeGetCacheSize,
    model: files.model,
    freshEntities,
  });
  const scope = createBlockScope();
  const sandbox = await createSandbox({
    code: files.code,
    ...(files.sourceMap !== undefined && { sourceMap: files.sourceMap }),
    fileName: files.codeFile,
    unsafe: options.unsafe,
    timeoutMs: options.timeout,
    queryLimit: options.queryLimit,
    // With --multi-chain other nodes write the same schema: the sandbox may not remember entities.
    ...(options.multiChain && { readCacheSize: 0 }),
    freshEntities,
    family: chain.sandboxFamily,
    ...(chain.sandboxCustom !== undefined && { custom: chain.sandboxCustom }),
    ...(chain.sandboxChainTypes !== undefined && { chainTypes: chain.sandboxChainTypes }),
    onAccess(entries) {
      // a read the sandbox answered never reaches the cache: tell it which types are read (known-ids.ts)
      for (const [, entity, kind] of entries) if ((kind & READ) !== 0) cache.markRead(entity);
      input.onAccess?.(entries);
    },
    host: chain.mappingHost({
      cache,
      logger: input.logger,
      chainId: input.chainId,
      currentHeight: scope.height,
      createDynamicDatasource: scope.createDataSource,
    }),
  });
  const missing = [...project.manifest.dataSources, ...project.manifest.templates]
    .flatMap((ds) => ds.mapping.handlers.map((h) => h.handler))
    .filter((h) => !sandbox.handlers.includes(h));
  // as SubQuery's node: a block that calls one fails (HANDLER_NOT_FOUND), and until one does the project runs
  if (missing.length > 0)
    input.logger.warn(
      `${files.codeFile} does not export ${[...new Set(missing)].map((h) => `${h}${didYouMean(h, sandbox.handlers)}`).join(', ')}, named as handlers in ${project.manifestPath}: ` +
        'the first block that calls one will fail; export them from src/index.ts and run idx build',
    );
  if (sandbox.customProblems.length > 0) {
    sandbox.dispose();
    throw new ValidationError(project.manifestPath, [...sandbox.customProblems]);
  }
  chain.warmUp?.(sandbox);
  const books: StoreCacheBooks = cache;
  return {
    /** for the indexing loop: every write reaches the cache through the mappings (or `seed`), so the sandbox sees it */
    cache: books,
    /** an entity stored before the handlers run (a test's dependent entities): the sandbox is told it did not see it */
    seed(entity: string, id: string, data: EntityData, height: number) {
      cache.set(entity, id, data, height);
      sandbox.forgetKnownIds();
    },
    runner: scope.runner(
      (content, calls) => chain.runBlock(sandbox, content, calls),
      chain.runBlocks === undefined ? undefined : (blocks, budgetMs) => chain.runBlocks!(sandbox, blocks, budgetMs),
    ),
    processors: sandbox.processors,
    dispose: () => sandbox.dispose(),
  };
}

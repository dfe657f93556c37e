import { basename, join, relative } from 'node:path';
import { chainTableKey } from '../../../domain/entities/chain-tables.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { Logger } from '../../../infra/logging/create-logger.ts';
import { loadProject, type LoadedMultichain } from '../../../infra/project/load-project.ts';
import type { NodeOptions } from './node-options.ts';
import { checkedSchemaName } from './open-project-store.ts';
import type { RunNodeContext } from './run-node.ts';

/**
 * `idx-node -f <multichain project> --multi-chain`: every chain the multichain manifest lists is
 * indexed by its own indexer (chain source, sandbox, metadata, HTTP server) in this process, all
 * into one shared schema, exactly as one `idx-node -f <chain>.yaml --multi-chain` per chain would.
 * A chain that fails stops the others, and its error names it.
 */
export async function runMultichain(ctx: RunNodeContext, multichain: LoadedMultichain, runChain: (ctx: RunNodeContext) => Promise<void>): Promise<void> {
  const { options } = ctx;
  const schema = multichainSchemaName(options, multichain);
  requireMultiChainFlag(options, multichain);
  for (const [flag, given] of [
    ['--network-endpoint', options.networkEndpoint.length > 0],
    ['--network-dictionary', options.networkDictionary !== undefined],
  ] as const) {
    if (given) {
      throw new IdxError(
        'MULTICHAIN_FLAG_UNSUPPORTED',
        `${flag} would apply to every chain of ${multichain.manifestPath}; set it in each chain's manifest, or run one idx-node -f <chain manifest> --multi-chain --db-schema=${schema} per chain`,
      );
    }
  }
  // Before any chain opens it: every chain would otherwise open the one embedded database of the folder.
  if (ctx.env.DB_HOST === undefined || ctx.env.DB_HOST === '') {
    throw new IdxError(
      'MULTI_CHAIN_NEEDS_POSTGRES',
      '--multi-chain needs PostgreSQL (set DB_HOST and the other DB_* variables): with the embedded database every project folder has a database of its own, so projects cannot share a schema',
    );
  }
  // Every manifest is checked before any chain starts.
  const projects = await Promise.all(multichain.projectPaths.map((p) => loadProject(p)));
  const chains = projects.map((p) => {
    const chainId = p.manifest.network?.chainId;
    if (chainId === undefined) throw new IdxError('NETWORK_MISSING', `${p.manifestPath}: the manifest needs network.chainId and network.endpoint`);
    return { project: p, chainId };
  });
  for (const [i, c] of chains.entries()) {
    const first = chains.findIndex((o) => o.chainId === c.chainId);
    if (first !== i) {
      throw new IdxError(
        'MULTICHAIN_CHAIN_REPEATED',
        `${multichain.manifestPath}: ${multichain.manifest.projects[first]} and ${multichain.manifest.projects[i]} are both for chain ${c.chainId}; each chain keeps its own metadata in the shared schema, so list each chain once`,
      );
    }
  }

  const log = ctx.logger.child('node');
  log.info(`indexing ${chains.length} chains of ${multichain.manifestPath} (${chains.map((c) => c.chainId).join(', ')}) into schema "${schema}"`);
  const controller = new AbortController();
  const stop = () => controller.abort();
  if (ctx.signal.aborted) stop();
  ctx.signal.addEventListener('abort', stop, { once: true });
  let firstError: unknown;
  try {
    const runs = chains.map(({ project, chainId }, i) =>
      runChain({
        ...ctx,
        options: {
          ...options,
          idx: project.manifestPath,
          dbSchema: schema,
          // each chain serves /health, /meta… on its own port: --port for the first, the next ones after it
          port: options.port + i,
          ...(options.csvOutDir !== undefined && { csvOutDir: join(options.csvOutDir, chainTableKey(chainId)) }),
        },
        logger: withPrefix(ctx.logger, `[chain ${chainId}] `),
        signal: controller.signal,
      }).catch((err: unknown) => {
        stop();
        const named =
          err instanceof IdxError
            ? new IdxError(err.code, `chain ${chainId} (${shown(project.manifestPath)}): ${err.message}`, { cause: err, retryable: err.retryable })
            : err;
        firstError ??= named; // the cause; the others stopped because of it
        throw named;
      }),
    );
    const results = await Promise.allSettled(runs);
    if (results.some((r) => r.status === 'rejected')) throw firstError;
  } finally {
    ctx.signal.removeEventListener('abort', stop);
  }
}

/** The shared schema: `--db-schema`, else `--idx-name`, else the multichain folder's name, for every chain alike. */
export function multichainSchemaName(options: Pick<NodeOptions, 'dbSchema' | 'idxName'>, multichain: LoadedMultichain): string {
  return checkedSchemaName(options, options.dbSchema ?? options.idxName ?? basename(multichain.root), `the multichain folder ${multichain.root}`);
}

/** A multichain project only makes sense with `--multi-chain`: say so, and how to use one chain instead. */
export function requireMultiChainFlag(
  options: Pick<NodeOptions, 'dbSchema' | 'idxName' | 'multiChain'>,
  multichain: LoadedMultichain,
  doing = 'index all its chains into one schema',
): void {
  if (options.multiChain) return;
  throw new IdxError(
    'MULTI_CHAIN_FLAG_NEEDED',
    `${multichain.manifestPath} is a multichain project (${multichain.manifest.projects.join(', ')}): ${doing} with --multi-chain ` +
      `(the schema is --db-schema, by default "${multichainSchemaName(options, multichain)}"), or give one chain with -f ${shown(multichain.projectPaths[0]!)}`,
  );
}

/** A path as the user can give it from here: relative when below the current folder. */
function shown(path: string): string {
  const rel = relative(process.cwd(), path);
  return rel === '' || rel.startsWith('..') ? path : rel;
}

/** The chains share the output: each line says which chain it is about. */
function withPrefix(logger: Logger, prefix: string): Logger {
  return {
    fatal: (m, f) => logger.fatal(prefix + m, f),
    error: (m, f) => logger.error(prefix + m, f),
    warn: (m, f) => logger.warn(prefix + m, f),
    info: (m, f) => logger.info(prefix + m, f),
    debug: (m, f) => logger.debug(prefix + m, f),
    trace: (m, f) => logger.trace(prefix + m, f),
    isDebugEnabled: () => logger.isDebugEnabled(),
    level: () => logger.level(),
    child: (category) => withPrefix(logger.child(category), prefix),
    profile: (service, operation, ms) => logger.profile(`${prefix}${service}`, operation, ms),
    flush: () => logger.flush(),
  };
}

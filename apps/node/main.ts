import { availableParallelism } from 'node:os';
import { setFlagsFromString } from 'node:v8';
import { IdxError } from '../../domain/errors.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { redactUrlsIn } from '../../infra/rpc/redact-url.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { heapGrowingFlag } from './start-up/heap-growing-flag.ts';
import { nodeVariants, type NodeVariantName } from './families/registry.ts';
import { parseNodeArgs } from './start-up/node-options.ts';

/** `idx-node` and `idx-node-ethereum`: returns the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2), variantName: NodeVariantName = 'base'): Promise<number> {
  const variant = nodeVariants[variantName];
  const { program } = variant;
  let cmd;
  let version: string;
  try {
    version = findPackage().version;
    cmd = parseNodeArgs(argv, { program, version, variant: variantName, cores: availableParallelism(), write: (s) => void process.stdout.write(s) });
  } catch (err) {
    // a flag's value may be an endpoint URL with its key: printed as the logger prints URLs
    process.stderr.write(`${redactUrlsIn(err instanceof IdxError ? err.message : String(err))}\n`);
    return 1;
  }
  if (cmd.command === 'exit') return cmd.code;
  if (cmd.command === 'rpc-cache') {
    const { rpcCacheCommand } = await import('./start-up/rpc-cache-command.ts');
    return rpcCacheCommand(cmd.action, cmd.options.rpcCache, process.env, (line) => void process.stdout.write(`${line}\n`));
  }

  const { options } = cmd;
  // read by V8 at each full collection, so setting it now, before the heap has grown, is in time
  const heapFlag = heapGrowingFlag(process.env, process.execArgv);
  if (heapFlag !== undefined) setFlagsFromString(heapFlag);
  const logger = createLogger({ level: options.logLevel, format: options.outputFmt, debug: options.debug, profiler: options.profiler });
  for (const w of cmd.warnings) logger.warn(w);
  const controller = new AbortController();
  const stop = (signal: string) => {
    if (controller.signal.aborted) process.exit(130);
    logger.info(`${signal}: finishing the blocks the sandbox is running (at most a second) and saving; press Ctrl-C again to quit at once`);
    controller.abort();
  };
  // `on`, not `once`: the second signal must reach stop() to quit at once, not fall to Node's default.
  process.on('SIGINT', () => stop('SIGINT'));
  process.on('SIGTERM', () => stop('SIGTERM'));
  try {
    if (cmd.command === 'promote') {
      const { promoteCommand } = await import('./start-up/promote-command.ts');
      await promoteCommand(cmd.name, options, logger, process.env);
    } else if (cmd.command === 'force-clean' || cmd.command === 'reindex') {
      const { forceClean, reindex } = await import('./start-up/history-commands.ts');
      const withProject = { ...options, idx: options.idx! };
      if (cmd.command === 'force-clean') await forceClean(withProject, logger, process.env);
      else await reindex(withProject, cmd.targetHeight, logger, process.env);
    } else if (cmd.command === 'test') {
      const { runTests } = await import('./testing/run-tests.ts');
      const failing = await runTests({
        options,
        ...(cmd.testFilter !== undefined && { testFilter: cmd.testFilter }),
        ...(cmd.record === true && { record: true }),
        ...(cmd.updateSnapshots === true && { updateSnapshots: true }),
        variant: variantName,
        logger,
        version,
        env: process.env,
        signal: controller.signal,
      });
      logger.flush();
      return failing > 0 ? 1 : 0;
    } else {
      const { runNode } = await import('./start-up/run-node.ts');
      await runNode({ options, variant: variantName, logger, version, env: process.env, signal: controller.signal });
    }
    logger.flush();
    return 0;
  } catch (err) {
    const e = err as Error & { code?: string };
    logger.child('node').error(e instanceof IdxError ? e.message : (e.stack ?? String(e)));
    logger.flush();
    return 1;
  }
}

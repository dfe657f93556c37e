import { IdxError } from '../../domain/errors.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { redactUrlsIn } from '../../infra/rpc/redact-url.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { parseShardArgs } from './shard-options.ts';

/** `idx-shard`: returns the exit code. */
export async function main(argv: readonly string[] = process.argv.slice(2)): Promise<number> {
  let cmd;
  try {
    cmd = parseShardArgs(argv, { version: findPackage().version, write: (s) => void process.stdout.write(s) });
  } catch (err) {
    // a flag's value may be an endpoint URL with its key: printed as the logger prints URLs
    process.stderr.write(`${redactUrlsIn(err instanceof IdxError ? err.message : String(err))}\n`);
    return 1;
  }
  if (cmd.command === 'exit') return cmd.code;

  const { options } = cmd;
  const logger = createLogger({ level: options.logLevel, format: options.outputFmt });
  const controller = new AbortController();
  const stop = (signal: string) => {
    if (controller.signal.aborted) process.exit(130);
    logger.child('shard').info(`${signal}: finishing the batch being written; press Ctrl-C again to quit at once`);
    controller.abort();
  };
  process.once('SIGINT', () => stop('SIGINT'));
  process.once('SIGTERM', () => stop('SIGTERM'));
  try {
    const { runShard } = await import('./run-shard.ts');
    await runShard({ options, logger, env: process.env, signal: controller.signal });
    logger.flush();
    return 0;
  } catch (err) {
    const e = err as Error;
    logger.child('shard').error(e instanceof IdxError ? e.message : (e.stack ?? String(e)));
    logger.flush();
    return 1;
  }
}

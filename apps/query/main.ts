import { IdxError } from '../../domain/errors.ts';
import { createLogFile, LOG_ROTATION, type LogFile } from '../../infra/logging/create-log-file.ts';
import { createLogger } from '../../infra/logging/create-logger.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { parseQueryArgs } from './query-options.ts';
import { queryFeatures } from './query-features.ts';
import { runQuery, type QueryFeature } from './run-query.ts';

const ANSI = /\u001b\[[0-9;]*m/g;

/** `idx-query`: returns the exit code once stopped (SIGINT/SIGTERM) or failed. */
export async function main(argv: readonly string[] = process.argv.slice(2), features?: readonly QueryFeature[]): Promise<number> {
  let cmd;
  let version: string;
  try {
    version = findPackage().version;
    cmd = parseQueryArgs(argv, { version, cwd: process.cwd(), write: (s) => void process.stdout.write(s) });
  } catch (err) {
    process.stderr.write(`${err instanceof IdxError ? err.message : String(err)}\n`);
    return 1;
  }
  if (cmd.command === 'exit') return cmd.code;
  const { options } = cmd;

  let file: LogFile | undefined;
  try {
    if (options.logPath !== undefined) file = createLogFile({ path: options.logPath, ...(options.logRotate && { rotate: LOG_ROTATION }) });
  } catch (err) {
    process.stderr.write(`${(err as Error).message}\n`);
    return 1;
  }
  // --log-path adds a file: lines still reach the terminal, and the file gets them without colors.
  const toFile = file;
  const logger = createLogger({
    level: options.logLevel,
    format: options.outputFmt,
    // the file first: it keeps its lines when the terminal or pipe is gone
    write: (line) => {
      toFile?.write(line.replace(ANSI, ''));
      process.stdout.write(line);
    },
  });

  let running;
  try {
    running = await runQuery({ options, logger, version, env: process.env, features: features ?? queryFeatures(options) });
  } catch (err) {
    const e = err as Error;
    logger.child('query').error(e instanceof IdxError ? e.message : (e.stack ?? String(e)));
    logger.flush();
    file?.close();
    return 1;
  }
  const signal = await new Promise<string>((resolve) => {
    process.once('SIGINT', () => resolve('SIGINT'));
    process.once('SIGTERM', () => resolve('SIGTERM'));
  });
  logger.child('query').info(`${signal}: stopping`);
  await running.close();
  logger.flush();
  file?.close();
  return 0;
}

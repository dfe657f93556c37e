import { closeSync, existsSync, fstatSync, mkdirSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';

export interface LogRotation {
  /** start a new file after this long (idx-query --log-rotate: 1 day) */
  intervalMs: number;
  /** files kept, the current one included (--log-rotate: 7) */
  maxFiles: number;
  /** start a new file before one would pass this size (--log-rotate: 1 GB) */
  maxBytes: number;
}

export const LOG_ROTATION: LogRotation = { intervalMs: 24 * 60 * 60 * 1000, maxFiles: 7, maxBytes: 1024 ** 3 };

export interface LogFile {
  readonly path: string;
  write(line: string): void;
  close(): void;
}

export interface CreateLogFileOptions {
  path: string;
  rotate?: LogRotation;
  now?: () => number;
}

/**
 * An append-only log file, optionally rotated: `app.log` is the current file, `app.log.1` the one
 * before, up to `maxFiles` in all. Written synchronously, as pino writes to a terminal, so the last
 * lines before a crash are on disk. (pino-roll would do this but is not a dependency; the logic is
 * a rename chain.)
 */
export function createLogFile(options: CreateLogFileOptions): LogFile {
  const path = resolve(options.path);
  const now = options.now ?? Date.now;
  const { rotate } = options;
  let fd: number;
  let size = 0;
  let openedAt = now();

  const open = () => {
    try {
      mkdirSync(dirname(path), { recursive: true });
      fd = openSync(path, 'a');
      const stat = fstatSync(fd);
      size = stat.size;
      // a file kept from an earlier run rotates a day after it was begun, not after this start
      openedAt = size > 0 && stat.birthtimeMs > 0 ? Math.min(stat.birthtimeMs, now()) : now();
    } catch (err) {
      throw new IdxError('LOG_FILE_UNWRITABLE', `cannot write the log file ${path} (--log-path): ${(err as Error).message}`, { cause: err });
    }
  };

  const roll = () => {
    closeSync(fd);
    const max = rotate!.maxFiles;
    if (max <= 1) rmSync(path, { force: true });
    else {
      rmSync(`${path}.${max - 1}`, { force: true });
      for (let i = max - 2; i >= 1; i--) if (existsSync(`${path}.${i}`)) renameSync(`${path}.${i}`, `${path}.${i + 1}`);
      renameSync(path, `${path}.1`);
    }
    open();
  };

  open();
  return {
    path,
    write(line) {
      const bytes = Buffer.byteLength(line);
      if (rotate !== undefined && size > 0 && (size + bytes > rotate.maxBytes || now() - openedAt >= rotate.intervalMs)) roll();
      writeSync(fd, line);
      size += bytes;
    },
    close() {
      closeSync(fd);
    },
  };
}

import { statfs } from 'node:fs/promises';
import { Worker } from 'node:worker_threads';
import { IdxError } from '../../domain/errors.ts';

/**
 * PGlite on a full disk does not fail: a write that finds no space makes it spin in wasm on the
 * main thread (100% CPU, no /health, SIGTERM unheard). Two defences:
 * - `check()` before each flush: below `minFreeBytes` free the node stops with DISK_FULL before
 *   the database is reached, every committed block intact;
 * - a watchdog thread: when the main thread stops answering for `stallMs` while the disk is below
 *   `minFreeBytes` (a flush larger than the margin), it says why on stderr and kills the process,
 *   the only way out of the spin. The next start recovers the database like after any kill.
 */
export interface DiskSpaceGuardOptions {
  /** the PGlite data folder */
  dir: string;
  /** default 64 MiB: four WAL segments */
  minFreeBytes?: number;
  /** default 15 s */
  stallMs?: number;
}

export interface DiskSpaceGuard {
  /** throws DISK_FULL when less than the minimum is free */
  check(): Promise<void>;
  close(): Promise<void>;
}

const MiB = 1024 * 1024;
export const DEFAULT_MIN_FREE_BYTES = 64 * MiB;

export async function freeBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.bavail * s.bsize;
}

const mib = (n: number) => `${(n / MiB).toFixed(n < 10 * MiB ? 1 : 0)} MiB`;

// A plain script: the worker must not depend on the TypeScript loader of the main thread.
const WATCHDOG = `
const { workerData } = require('node:worker_threads');
const { statfsSync, writeSync } = require('node:fs');
const { dir, minFreeBytes, stallMs, beat } = workerData;
const last = new BigInt64Array(beat);
setInterval(() => {
  if (Date.now() - Number(Atomics.load(last, 0)) < stallMs) return;
  let free;
  try {
    const s = statfsSync(dir);
    free = s.bavail * s.bsize;
  } catch {
    return;
  }
  if (free >= minFreeBytes) return;
  writeSync(2, 'error: [DISK_FULL] the disk of the embedded database in ' + dir + ' is full (' + (free / 1048576).toFixed(1) + ' MiB free) and the database stopped responding ' +
    'for ' + Math.round(stallMs / 1000) + ' s: killing this process, as it cannot stop otherwise. Free some space and start again: indexing resumes after the last committed block.\\n');
  process.kill(process.pid, 'SIGKILL');
}, 500);
`;

export function createDiskSpaceGuard(options: DiskSpaceGuardOptions): DiskSpaceGuard {
  const minFreeBytes = options.minFreeBytes ?? DEFAULT_MIN_FREE_BYTES;
  const stallMs = options.stallMs ?? 15_000;
  const beat = new SharedArrayBuffer(8);
  const last = new BigInt64Array(beat);
  const tick = () => Atomics.store(last, 0, BigInt(Date.now()));
  tick();
  const heart = setInterval(tick, 250);
  heart.unref();
  const watchdog = new Worker(WATCHDOG, { eval: true, workerData: { dir: options.dir, minFreeBytes, stallMs, beat } });
  watchdog.unref();
  return {
    async check() {
      const free = await freeBytes(options.dir);
      if (free >= minFreeBytes) return;
      throw new IdxError(
        'DISK_FULL',
        `only ${mib(free)} free on the disk of the embedded database in ${options.dir}; idx stops below ${mib(minFreeBytes)} so that the database never runs out of space mid-write. Free some space and start again: indexing resumes after the last committed block.`,
      );
    },
    async close() {
      clearInterval(heart);
      await watchdog.terminate();
    },
  };
}

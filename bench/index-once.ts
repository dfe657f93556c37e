import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { BIN, programEnv } from '../test/support/idx-programs.ts';
import { deadPort } from '../test/support/local-rpc-server.ts';
import type { ProgressSample } from './tenths.ts';

/**
 * Runs the idx-node CLI on a project until `toBlock` is committed; prints events/s and blocks/s
 * from the first block processed to the last one committed, the peak RSS and the start-up time.
 */
export async function indexOnce(
  label: string,
  dir: string,
  endpoint: string,
  env: Record<string, string | undefined>,
  schema: string,
  toBlock: number,
  events: number,
  blocks: number,
  /** more idx-node flags */
  args: readonly string[] = [],
  /** the last height committed, where `/meta` does not tell all of it (measureIndexing) */
  committed?: () => Promise<number | undefined>,
): Promise<IndexingRun> {
  // free now: /meta is polled on it, and the node would move to another if it were taken
  const port = await deadPort();
  const child = spawn(
    process.execPath,
    // BENCH_NODE_ARGS: more node flags for the spawned idx-node, to compare settings (e.g. --cpu-prof)
    [
      '--no-node-snapshot',
      ...(process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean),
      BIN('idx-node'),
      '-f',
      dir,
      '--network-endpoint',
      endpoint,
      '--db-schema',
      schema,
      '-p',
      String(port),
      '--log-level',
      'warn',
      ...args,
      // BENCH_IDX_ARGS: more idx-node flags, to compare settings (e.g. --batch-size 50)
      ...(process.env.BENCH_IDX_ARGS ?? '').split(' ').filter(Boolean),
    ],
    {
      env: programEnv(env),
      stdio: ['ignore', 'inherit', 'inherit'],
    },
  );
  return measureIndexing({ label, child, port, toBlock, events, blocks, ...(committed !== undefined && { committed }) });
}

export interface IndexingRun {
  seconds: number;
  /** every look at `/meta`, for the pace over the run (tenths.ts) */
  progress: ProgressSample[];
  eventsPerSecond: number;
  peakRssMiB: number;
  startupSeconds: number;
}

/**
 * Watches an indexer (idx-node, or SubQuery's node, which serves a `/meta` of the same shape) until
 * the height it has committed reaches `toBlock`, then stops it. Indexing time counts from the first
 * `/meta` naming a block in progress to `toBlock` committed.
 */
export async function measureIndexing(run: {
  label: string;
  child: ChildProcess;
  port: number;
  toBlock: number;
  events: number;
  blocks: number;
  /** the last committed height, where `/meta` does not tell it (SubQuery's: read its `_metadata` table) */
  committed?: () => Promise<number | undefined>;
}): Promise<IndexingRun> {
  const { label, child, port, toBlock, events, blocks } = run;
  const spawned = performance.now();
  let started: number | undefined;
  let peakRss = 0;
  let startRss = 0;
  const progress: ProgressSample[] = [];
  await new Promise<void>((resolve, reject) => {
    const early = (code: number | null) => reject(new Error(`${label}: the indexer exited with ${code} before finishing`));
    child.on('exit', early);
    const poll = setInterval(async () => {
      try {
        peakRss = Math.max(peakRss, Number(/VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1] ?? 0) * 1024);
      } catch {
        // the process is gone; 'exit' reports it
      }
      const meta = (await fetch(`http://127.0.0.1:${port}/meta`)
        .then((r) => r.json())
        .catch(() => undefined)) as { currentProcessingHeight?: number; lastProcessedHeight?: number } | undefined;
      if (meta?.currentProcessingHeight !== undefined && started === undefined) {
        started = performance.now();
        startRss = peakRss;
      }
      const committed = run.committed ? await run.committed().catch(() => undefined) : meta?.lastProcessedHeight;
      progress.push({ at: performance.now(), processing: meta?.currentProcessingHeight, committed });
      if (committed !== undefined && committed >= toBlock) {
        clearInterval(poll);
        // only our own listener: Node's child_process keeps listeners of its own on 'exit'
        child.off('exit', early);
        resolve();
      }
    }, 50);
  });
  const done = performance.now();
  child.kill('SIGTERM');
  await new Promise((r) => child.once('exit', r));
  const seconds = (done - (started ?? spawned)) / 1000;
  const result = {
    seconds,
    progress,
    eventsPerSecond: events / seconds,
    peakRssMiB: peakRss / 2 ** 20,
    startupSeconds: ((started ?? spawned) - spawned) / 1000,
  };
  console.log(
    `${label}: ${events} events in ${blocks} blocks in ${seconds.toFixed(1)} s = ${result.eventsPerSecond.toFixed(0)} events/s, ${(blocks / seconds).toFixed(0)} blocks/s; ` +
      `peak RSS ${result.peakRssMiB.toFixed(0)} MiB (${(startRss / 2 ** 20).toFixed(0)} MiB when indexing began); start-up ${result.startupSeconds.toFixed(1)} s`,
  );
  return result;
}

import type { IndexerStatus } from './indexer-status.ts';

export interface ProgressSample {
  at: number;
  blocks: number;
  events: number;
  /** the long note on finality was printed once already: later lines carry a short one */
  finalityExplained?: boolean;
}

/**
 * The periodic progress line: height and target with the share of the project's blocks done,
 * blocks/s and events/s since the last sample, and the time left at that pace.
 */
export function progressLine(
  status: IndexerStatus,
  previous: ProgressSample,
  now: number,
): { line: string; fields: Record<string, unknown>; sample: ProgressSample } {
  const seconds = Math.max(0.001, (now - previous.at) / 1000);
  const blocksPerSecond = (status.blocksProcessed - previous.blocks) / seconds;
  const eventsPerSecond = (status.eventsProcessed - previous.events) / seconds;
  const height = status.lastProcessedHeight ?? status.currentProcessingHeight ?? 0;
  const target = status.targetHeight ?? height;
  const left = Math.max(0, target - (status.currentProcessingHeight ?? height));
  const done = percentDone(status.startHeight, status.lastProcessedHeight, target);
  const note = left === 0 ? caughtUp(status, target, previous.finalityExplained === true) : undefined;
  const eta = note !== undefined ? note.text : blocksPerSecond > 0 ? `ETA ${formatDuration(left / blocksPerSecond)}` : 'ETA unknown';
  const line =
    `indexed to ${height}/${target}${done === undefined ? '' : ` (${formatPercent(done)})`} (processing ${status.currentProcessingHeight ?? '-'}), ` +
    `${blocksPerSecond.toFixed(1)} blocks/s, ${eventsPerSecond.toFixed(1)} events/s, ${eta}`;
  const fields = {
    event: 'progress',
    height,
    target,
    ...(done !== undefined && { percent: Number(formatPercent(done).slice(0, -1)) }),
    processing: status.currentProcessingHeight,
    blocksPerSecond: Number(blocksPerSecond.toFixed(1)),
    eventsPerSecond: Number(eventsPerSecond.toFixed(1)),
    etaSeconds: left === 0 ? 0 : blocksPerSecond > 0 ? Math.round(left / blocksPerSecond) : null,
  };
  const sample: ProgressSample = { at: now, blocks: status.blocksProcessed, events: status.eventsProcessed };
  if (previous.finalityExplained === true || note?.explained === true) sample.finalityExplained = true;
  return { line, fields, sample };
}

/**
 * The share of the blocks from the project's start to the target that are committed (0..1), or
 * undefined before the start is known or while no block from it is final yet. Counted from the start
 * height, not from 0: a project starting at block 15,000,000 is not 99% done at its first block.
 */
export function percentDone(start: number | undefined, indexed: number | undefined, target: number): number | undefined {
  if (start === undefined) return undefined;
  const total = target - start + 1;
  if (total <= 0) return undefined;
  const committed = indexed === undefined ? 0 : Math.min(total, Math.max(0, indexed - start + 1));
  return committed / total;
}

/** One decimal, rounded down: 100% only when every block is in. */
export function formatPercent(share: number): string {
  return `${(Math.floor(share * 1000) / 10).toFixed(1)}%`;
}

/**
 * At the target while the chain's head is ahead means the node waits for finality (by default it
 * indexes final blocks only): saying "caught up" then, or nothing, makes `indexed to 0/0` on a
 * fresh chain look stuck or done. So the line says what it waits for: the whole explanation once,
 * then a short line (every 5 s it would drown the log).
 */
function caughtUp(status: IndexerStatus, target: number, explainedBefore: boolean): { text: string; explained: boolean } {
  const waiting = (status.bestHeight ?? target) - target;
  if (waiting <= 0) return { text: 'caught up', explained: false };
  const short = `waiting for ${waiting} block${waiting === 1 ? '' : 's'} to be final (the head is ${status.bestHeight}`;
  if (explainedBefore) return { text: `${short})`, explained: true };
  return {
    text: `${short}; final: the chain's "finalized" block, else --block-confirmations behind the head; --unfinalized-blocks indexes to the head)`,
    explained: true,
  };
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

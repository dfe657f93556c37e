import type { IndexerStatus } from './indexer-status.ts';

export interface ProgressSample {
  at: number;
  blocks: number;
  events: number;
}

/**
 * The periodic progress line: height and target, blocks/s and events/s since the last sample,
 * and the time left at that pace.
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
  const eta = left === 0 ? caughtUp(status, target) : blocksPerSecond > 0 ? `ETA ${formatDuration(left / blocksPerSecond)}` : 'ETA unknown';
  const line = `indexed to ${height}/${target} (processing ${status.currentProcessingHeight ?? '-'}), ${blocksPerSecond.toFixed(1)} blocks/s, ${eventsPerSecond.toFixed(1)} events/s, ${eta}`;
  const fields = {
    event: 'progress',
    height,
    target,
    processing: status.currentProcessingHeight,
    blocksPerSecond: Number(blocksPerSecond.toFixed(1)),
    eventsPerSecond: Number(eventsPerSecond.toFixed(1)),
    etaSeconds: left === 0 ? 0 : blocksPerSecond > 0 ? Math.round(left / blocksPerSecond) : null,
  };
  return { line, fields, sample: { at: now, blocks: status.blocksProcessed, events: status.eventsProcessed } };
}

/**
 * At the target while the chain's head is ahead means the node waits for finality (by default it
 * indexes final blocks only): saying "caught up" then, or nothing, makes `indexed to 0/0` on a
 * fresh chain look stuck or done. So the line says what it waits for, and how not to.
 */
function caughtUp(status: IndexerStatus, target: number): string {
  const waiting = (status.bestHeight ?? target) - target;
  if (waiting <= 0) return 'caught up';
  return `waiting for ${waiting} block${waiting === 1 ? '' : 's'} to be final (the head is ${status.bestHeight}; final: the chain's "finalized" block, else --block-confirmations behind the head; --unfinalized-blocks indexes to the head)`;
}

export function formatDuration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s}s`;
  if (s < 3600) return `${Math.floor(s / 60)}m${String(s % 60).padStart(2, '0')}s`;
  return `${Math.floor(s / 3600)}h${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}m`;
}

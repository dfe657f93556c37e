import { compileBlockHandler } from '../../project/compile-block-handler.ts';
import { cronDue } from '../../project/cron-schedule.ts';
import type { DataSource, SubstrateCallFilter, SubstrateEventFilter } from '../../project/project-model.ts';
import type { SubstrateBlockSummary } from './substrate-block.ts';

export type SubstrateCompiledHandler =
  | { kind: 'block'; handler: string; modulo?: number; cron?: string }
  | { kind: 'event'; handler: string; filter: SubstrateEventFilter }
  | { kind: 'call'; handler: string; filter: SubstrateCallFilter };

export interface SubstrateCompiledSource {
  index: number;
  startBlock: number;
  endBlock?: number;
  handlers: SubstrateCompiledHandler[];
}

/** One handler call: the block, an extrinsic (by index) or an event (by index in `System.Events`). */
export type SubstrateHandlerCall = { handler: string; kind: 'block' } | { handler: string; kind: 'call' | 'event'; index: number };

export function compileSubstrateSource(ds: Pick<DataSource, 'startBlock' | 'endBlock' | 'mapping'>, index: number): SubstrateCompiledSource {
  const handlers = ds.mapping.handlers.map((h): SubstrateCompiledHandler => {
    switch (h.kind) {
      case 'substrate/BlockHandler':
        return compileBlockHandler(h.handler, h.filter);
      case 'substrate/EventHandler':
        return { kind: 'event', handler: h.handler, filter: h.filter ?? {} };
      case 'substrate/CallHandler':
        return { kind: 'call', handler: h.handler, filter: h.filter ?? {} };
      default:
        throw new Error(`${h.kind} is not a Substrate handler kind`);
    }
  });
  return { index, startBlock: ds.startBlock, ...(ds.endBlock !== undefined && { endBlock: ds.endBlock }), handlers };
}

const eventMatches = (f: SubstrateEventFilter, e: SubstrateBlockSummary['events'][number]) =>
  (f.module === undefined || f.module === e.section) && (f.method === undefined || f.method === e.method);

const callMatches = (f: SubstrateCallFilter, x: SubstrateBlockSummary['extrinsics'][number]) =>
  (f.module === undefined || f.module === x.section) &&
  (f.method === undefined || f.method === x.method) &&
  (f.success === undefined || f.success === x.success) &&
  (f.isSigned === undefined || f.isSigned === x.isSigned);

/**
 * The handler calls of a block in SubQuery's order: block handlers; events of the initialization
 * phase; each extrinsic's call handlers followed by its events' handlers; events of the
 * finalization phase. For each item the data sources go in order, and their handlers in manifest order.
 * `previousTimestamp` (seconds) decides `timestamp` cron filters.
 */
export function matchSubstrateHandlers(
  sources: readonly SubstrateCompiledSource[],
  block: SubstrateBlockSummary,
  previousTimestamp: number,
): SubstrateHandlerCall[] {
  const active = sources.filter((s) => s.startBlock <= block.height && (s.endBlock === undefined || block.height <= s.endBlock));
  const calls: SubstrateHandlerCall[] = [];
  for (const s of active) {
    for (const h of s.handlers) {
      if (h.kind !== 'block') continue;
      if (h.modulo !== undefined && block.height % h.modulo !== 0) continue;
      if (h.cron !== undefined && !cronDue(h.cron, previousTimestamp, block.timestamp)) continue;
      calls.push({ handler: h.handler, kind: 'block' });
    }
  }
  const event = (index: number) => {
    const e = block.events[index]!;
    for (const s of active)
      for (const h of s.handlers) if (h.kind === 'event' && eventMatches(h.filter, e)) calls.push({ handler: h.handler, kind: 'event', index });
  };
  const byPhase = (phase: 'initialization' | 'finalization') => block.events.forEach((e, i) => e.extrinsic === phase && event(i));
  byPhase('initialization');
  block.extrinsics.forEach((x, xi) => {
    for (const s of active)
      for (const h of s.handlers) if (h.kind === 'call' && callMatches(h.filter, x)) calls.push({ handler: h.handler, kind: 'call', index: xi });
    block.events.forEach((e, i) => e.extrinsic === xi && event(i));
  });
  byPhase('finalization');
  return calls;
}

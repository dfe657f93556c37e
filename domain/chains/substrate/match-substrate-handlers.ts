import type { CallOrder } from '../call-order.ts';
import { compileBlockHandler } from '../../project/compile-block-handler.ts';
import { cronDue } from '../../project/cron-schedule.ts';
import { isCustomDataSource, type DataSource } from '../../project/project-model.ts';
import { processorDataSourceOf, type BaseHandlerKind, type ProcessorDataSource, type ProcessorShape } from './custom-data-source.ts';
import type { SpecVersionFilter, SubstrateCallFilter, SubstrateEventFilter } from './manifest-rules.ts';
import type { SubstrateBlockSummary } from './substrate-block.ts';

type BlockHandler = { kind: 'block'; handler: string; modulo?: number; cron?: string } & SpecVersionFilter;

export type SubstrateCompiledHandler =
  | BlockHandler
  | { kind: 'event'; handler: string; filter: SubstrateEventFilter }
  | { kind: 'call'; handler: string; filter: SubstrateCallFilter }
  | CompiledCustomHandler;

/**
 * A custom data source's handler, matched as the runtime handler it rides on by any of its base
 * filters (none: every item), then filtered and transformed by its processor in the sandbox.
 */
export interface CompiledCustomHandler {
  kind: 'custom';
  handler: string;
  /** its position in the data source's handlers */
  position: number;
  base: BaseHandlerKind;
  filters: (BlockHandler | { kind: 'event'; filter: SubstrateEventFilter } | { kind: 'call'; filter: SubstrateCallFilter })[];
}

export interface SubstrateCompiledSource {
  index: number;
  startBlock: number;
  endBlock?: number;
  handlers: SubstrateCompiledHandler[];
  /** custom data sources: what their processor is handed */
  custom?: ProcessorDataSource;
}

/** One handler call: the block, an extrinsic (by index) or an event (by index in `System.Events`); `custom`, through a processor. */
export type SubstrateHandlerCall = ({ handler: string; kind: 'block' } | { handler: string; kind: 'call' | 'event'; index: number }) & {
  custom?: { source: number; position: number; ds: ProcessorDataSource };
  /** its place in the block's calls (call-order.ts), as matchSubstrateHandlers sets it */
  order?: CallOrder;
};

/** What compiling a custom data source needs: the loaded processors' shapes, and files made absolute. */
export interface CustomSourceContext {
  shapeOf(file: string): ProcessorShape | undefined;
  absolute(file: string): string;
}

export function compileSubstrateSource(
  ds: Pick<DataSource, 'startBlock' | 'endBlock' | 'mapping'> & Partial<Pick<DataSource, 'kind' | 'assets' | 'processor'>>,
  index: number,
  custom?: CustomSourceContext,
): SubstrateCompiledSource {
  const range = { index, startBlock: ds.startBlock, ...(ds.endBlock !== undefined && { endBlock: ds.endBlock }) };
  if (ds.kind !== undefined && isCustomDataSource({ kind: ds.kind })) return { ...range, ...compileCustomSource(ds as DataSource, custom) };
  const handlers = ds.mapping.handlers.map((h): SubstrateCompiledHandler => {
    switch (h.kind) {
      case 'substrate/BlockHandler':
        return { ...compileBlockHandler(h.handler, h.filter), ...(h.filter?.specVersion && { specVersion: h.filter.specVersion }) };
      case 'substrate/EventHandler':
        return { kind: 'event', handler: h.handler, filter: h.filter ?? {} };
      case 'substrate/CallHandler':
        return { kind: 'call', handler: h.handler, filter: h.filter ?? {} };
      default:
        throw new Error(`${h.kind} is not a Substrate handler kind`);
    }
  });
  return { ...range, handlers };
}

function compileCustomSource(ds: DataSource, custom: CustomSourceContext | undefined) {
  if (custom === undefined) throw new Error(`${ds.kind}: custom data sources need their processors loaded`);
  const described = processorDataSourceOf(ds, custom.absolute);
  const shape = custom.shapeOf(described.processor.file);
  if (shape === undefined) throw new Error(`${ds.kind}: its processor ${described.processor.file} is not loaded`);
  const handlers = described.mapping.handlers.map((h, position): CompiledCustomHandler => {
    const own = shape.handlers[h.kind];
    if (own === undefined) throw new Error(`${ds.kind}: handler kind ${h.kind} is not one of ${Object.keys(shape.handlers).join(', ')}`);
    const filters = own.filters.map((f) =>
      own.base === 'block'
        ? { ...compileBlockHandler(h.handler, f as never), ...((f as SpecVersionFilter).specVersion && { specVersion: (f as SpecVersionFilter).specVersion }) }
        : { kind: own.base, filter: f as SubstrateEventFilter & SubstrateCallFilter },
    );
    return { kind: 'custom', handler: h.handler, position, base: own.base, filters };
  });
  return { handlers, custom: described };
}

/** SubQuery's `specVersion: [from, to]`, both ends kept, null for open. */
const inSpecRange = (f: SpecVersionFilter, specVersion: number) =>
  f.specVersion === undefined || ((f.specVersion[0] ?? -Infinity) <= specVersion && specVersion <= (f.specVersion[1] ?? Infinity));

const eventMatches = (f: SubstrateEventFilter, e: SubstrateBlockSummary['events'][number], specVersion: number) =>
  inSpecRange(f, specVersion) && (f.module === undefined || f.module === e.section) && (f.method === undefined || f.method === e.method);

const callMatches = (f: SubstrateCallFilter, x: SubstrateBlockSummary['extrinsics'][number], specVersion: number) =>
  inSpecRange(f, specVersion) &&
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
  const blockDue = (h: BlockHandler) =>
    (h.modulo === undefined || block.height % h.modulo === 0) &&
    (h.cron === undefined || cronDue(h.cron, previousTimestamp, block.timestamp)) &&
    inSpecRange(h, block.specVersion);
  const viaProcessor = (s: SubstrateCompiledSource, h: CompiledCustomHandler) => ({ custom: { source: s.index, position: h.position, ds: s.custom! } });
  const calls: SubstrateHandlerCall[] = [];
  // the item's place in the block (block, initialization events, each extrinsic then its events, finalization events)
  const add = (call: SubstrateHandlerCall, item: readonly number[], s: SubstrateCompiledSource, position: number) =>
    calls.push({ ...call, order: [...item, s.index, position] });
  for (const s of active) {
    s.handlers.forEach((h, hi) => {
      if (h.kind === 'block' && blockDue(h)) add({ handler: h.handler, kind: 'block' }, [0, 0, 0], s, hi);
      else if (h.kind === 'custom' && h.base === 'block' && anyMatches(h, (f) => blockDue(f as BlockHandler)))
        add({ handler: h.handler, kind: 'block', ...viaProcessor(s, h) }, [0, 0, 0], s, hi);
    });
  }
  const event = (index: number, item: readonly number[]) => {
    const e = block.events[index]!;
    for (const s of active)
      s.handlers.forEach((h, hi) => {
        if (h.kind === 'event' && eventMatches(h.filter, e, block.specVersion)) add({ handler: h.handler, kind: 'event', index }, item, s, hi);
        else if (
          h.kind === 'custom' &&
          h.base === 'event' &&
          anyMatches(h, (f) => eventMatches((f as { filter: SubstrateEventFilter }).filter, e, block.specVersion))
        )
          add({ handler: h.handler, kind: 'event', index, ...viaProcessor(s, h) }, item, s, hi);
      });
  };
  const byPhase = (phase: 'initialization' | 'finalization', at: number) => block.events.forEach((e, i) => e.extrinsic === phase && event(i, [at, i, 0]));
  byPhase('initialization', 1);
  block.extrinsics.forEach((x, xi) => {
    for (const s of active)
      s.handlers.forEach((h, hi) => {
        if (h.kind === 'call' && callMatches(h.filter, x, block.specVersion)) add({ handler: h.handler, kind: 'call', index: xi }, [2, xi, 0], s, hi);
        else if (
          h.kind === 'custom' &&
          h.base === 'call' &&
          anyMatches(h, (f) => callMatches((f as { filter: SubstrateCallFilter }).filter, x, block.specVersion))
        )
          add({ handler: h.handler, kind: 'call', index: xi, ...viaProcessor(s, h) }, [2, xi, 0], s, hi);
      });
    block.events.forEach((e, i) => e.extrinsic === xi && event(i, [2, xi, 1 + i]));
  });
  byPhase('finalization', 3);
  return calls;
}

/** SubQuery's rule for a processor's base filters: none matches everything, else any one must match. */
const anyMatches = (h: CompiledCustomHandler, matches: (f: CompiledCustomHandler['filters'][number]) => boolean) =>
  h.filters.length === 0 || h.filters.some(matches);

import type { BlockFilter } from '../../project/project-model.ts';
import type { SubstrateCallFilter, SubstrateEventFilter } from './manifest-rules.ts';

// the processor's view of a data source is SubQuery's, the same for any family
export { processorDataSourceOf, type ProcessorDataSource } from '../../project/processor-data-source.ts';

/** The runtime handler a processor's handler rides on (SubQuery's `baseHandlerKind`). */
export type BaseHandlerKind = 'block' | 'event' | 'call';

/**
 * What the node needs of a loaded processor to match its handlers: its data-source kind, and per
 * handler kind the runtime handler it rides on and its base filters (any one must match; none:
 * every item).
 */
export interface ProcessorShape {
  kind: string;
  handlers: Record<string, { base: BaseHandlerKind; filters: (BlockFilter | SubstrateEventFilter | SubstrateCallFilter)[] }>;
}

/** `substrate/EventHandler` → `event`, …; undefined for a kind no processor may ride on. */
export function baseHandlerKindOf(kind: unknown): BaseHandlerKind | undefined {
  return kind === 'substrate/BlockHandler' ? 'block' : kind === 'substrate/EventHandler' ? 'event' : kind === 'substrate/CallHandler' ? 'call' : undefined;
}

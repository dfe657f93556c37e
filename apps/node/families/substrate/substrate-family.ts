import type { ChainFamily, FetchedBlocks } from '../../../../domain/chains/chain-family.ts';
import {
  compileSubstrateSource,
  matchSubstrateHandlers,
  type CustomSourceContext,
  type SubstrateCompiledSource,
  type SubstrateHandlerCall,
} from '../../../../domain/chains/substrate/match-substrate-handlers.ts';
import type { SubstrateBlock } from '../../../../domain/chains/substrate/substrate-block.ts';

/** Substrate ranges are fetched whole (blocks with their events): the plan is only the range. */
export interface SubstratePlan {
  from: number;
  to: number;
}

export interface SubstrateFetched extends FetchedBlocks {
  blocks: Map<number, SubstrateBlock>;
}

export type SubstrateFamily = ChainFamily<SubstrateCompiledSource, SubstratePlan, SubstrateFetched, SubstrateBlock, SubstrateHandlerCall>;

/**
 * The Substrate family (`substrate/Runtime`): block, call and event handlers matched by SubQuery's
 * filters (`modulo`/`timestamp`, `module`/`method`/`success`/`isSigned`) in SubQuery's order; and
 * custom data sources (`substrate/FrontierEvm`, …), matched by their processors' base filters.
 */
export function createSubstrateFamily(specName: string, custom?: CustomSourceContext): SubstrateFamily {
  return {
    name: 'substrate',
    specName,
    compile: (ds, index) => compileSubstrateSource(ds, index, custom),
    plan: (_sources, from, to) => ({ from, to }),
    wholeBlocks: true,
    blockCalls(sources, fetched, height) {
      const block = fetched.blocks.get(height);
      if (block === undefined) return undefined;
      const previous = fetched.blocks.get(height - 1)?.timestamp ?? block.timestamp - 1;
      const calls = matchSubstrateHandlers(sources, block, previous);
      return calls.length === 0 ? undefined : { content: block, calls, order: calls.map((c) => c.order!) };
    },
  };
}

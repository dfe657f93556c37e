import type { QueryContext } from '../query-context.ts';
import { createChainView, type ChainView } from './chain-view.ts';

/** graph-node's bounds of a collection's `first` and `skip` (GRAPH_GRAPHQL_MAX_FIRST, _MAX_SKIP), and its page size. */
export const GRAPH_MAX_FIRST = 1000;
export const GRAPH_MAX_SKIP = 5000;
export const GRAPH_DEFAULT_FIRST = 100;

/** A request of the Graph dialect: the SubQuery dialect's context, with the indexed chain for `block` and `_meta`. */
export interface SubgraphContext extends QueryContext {
  chain: ChainView;
}

/**
 * The context of one Graph request over the service's own (`base`). Its page limit is graph-node's
 * 1000, or `--query-limit` when that is larger (as GRAPH_GRAPHQL_MAX_FIRST raises graph-node's):
 * Graph clients page by 1000, which the SubQuery dialect's default of 100 would refuse.
 */
export function createSubgraphContext(base: QueryContext, deployment: string): SubgraphContext {
  const settings = { ...base.settings, queryLimit: Math.max(GRAPH_MAX_FIRST, base.settings.queryLimit) };
  const ctx = { ...base, settings } as SubgraphContext;
  ctx.chain = createChainView(ctx, deployment);
  return ctx;
}

import { GraphQLError } from 'graphql';
import { badInput } from '../compile-filter.ts';
import type { ConnectionArgs } from '../connection-source.ts';
import { GRAPH_DEFAULT_FIRST, GRAPH_MAX_SKIP } from './subgraph-context.ts';
import { translateWhere } from './translate-where.ts';
import type { WherePlan } from './where-plan.ts';

/** A collection field's arguments in the Graph dialect, as GraphQL coerced them. */
export interface CollectionArgs {
  skip?: number | null;
  first?: number | null;
  /** the orderBy enum's value: the SubQuery dialect's stem (`VALUE`, `FROM_ID`, `ACCOUNT_BY_FROM_ID__BALANCE`) */
  orderBy?: string | null;
  orderDirection?: 'asc' | 'desc' | null;
  where?: Record<string, unknown> | null;
}

/** graph-node's words for an out-of-range `first`/`skip`; above the bound it is a limit, as in the SubQuery dialect. */
function rangeError(arg: string, max: number, n: number): GraphQLError {
  const message = `The \`${arg}\` argument must be between 0 and ${max}, but is ${n}`;
  return n < 0 ? badInput(message) : new GraphQLError(message, { extensions: { code: 'QUERY_LIMIT_EXCEEDED', limit: max } });
}

/**
 * The SubQuery dialect's connection arguments for a Graph collection: `skip` is the offset, the
 * order is the orderBy column in orderDirection (graph-node orders by `id` ascending when orderBy is
 * not given, whatever orderDirection says), and `where` is translated.
 */
export function connectionArgs(plans: ReadonlyMap<string, WherePlan>, entity: string, args: CollectionArgs, maxFirst: number): ConnectionArgs {
  const first = args.first ?? GRAPH_DEFAULT_FIRST;
  const skip = args.skip ?? 0;
  if (first < 0 || first > maxFirst) throw rangeError('first', maxFirst, first);
  if (skip < 0 || skip > GRAPH_MAX_SKIP) throw rangeError('skip', GRAPH_MAX_SKIP, skip);
  const orderBy = args.orderBy == null ? ['PRIMARY_KEY_ASC'] : [`${args.orderBy}_${args.orderDirection === 'desc' ? 'DESC' : 'ASC'}`];
  const filter = args.where == null ? undefined : translateWhere(plans, entity, args.where);
  return { first, offset: skip, orderBy, ...(filter !== undefined && { filter }) };
}

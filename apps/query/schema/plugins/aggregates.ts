import type { GraphQLResolveInfo } from 'graphql';
import { defineAggregates, defineHaving } from '../../aggregate-types.ts';
import { groupByValues, resolveAggregates, resolveGroupedAggregates } from '../../aggregates.ts';
import type { ConnectionSource } from '../../connection-source.ts';
import type { QueryContext } from '../../query-context.ts';
import type { FieldMap, SchemaExtension } from '../schema-extension.ts';

/** With `--aggregate` (the default): each connection's `aggregates` and `groupedAggregates(groupBy, having)`, and their types. */
export const aggregates: SchemaExtension = {
  name: 'aggregates',
  connectionFields({ composer: sc, settings }, t): FieldMap | undefined {
    if (!settings.aggregate) return undefined;
    const { names } = t;
    defineAggregates(sc, t);
    sc.createEnumTC({ name: names.groupBy, values: Object.fromEntries([...groupByValues(t).keys()].map((g) => [g, {}])) });
    defineHaving(sc, t);
    return {
      aggregates: {
        type: names.aggregates,
        resolve: (src: ConnectionSource, _args: unknown, _ctx: QueryContext, info: GraphQLResolveInfo) => resolveAggregates(src, info),
      },
      groupedAggregates: {
        type: `[${names.aggregates}!]`,
        args: { groupBy: `[${names.groupBy}!]!`, having: names.having },
        resolve: (src: ConnectionSource, args: { groupBy: string[]; having?: Record<string, unknown> | null }, _ctx: QueryContext, info: GraphQLResolveInfo) =>
          resolveGroupedAggregates(src, args, info),
      },
    };
  },
};

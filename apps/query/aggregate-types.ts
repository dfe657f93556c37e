import type { SchemaComposer, ObjectTypeComposerFieldConfigMapDefinition } from 'graphql-compose';
import { AGGREGATE_FNS } from '../../infra/postgres/read/aggregate-expressions.ts';
import { aggregateColumns, aggregateType, HAVING_FILTER, havingColumns, UNSAFE_FNS, unsafeError, type AggregateResult } from './aggregates.ts';
import type { EntityTable } from './entity-tables.ts';
import { typeOf } from './graphql-type-names.ts';
import type { QueryContext } from './query-context.ts';

/** `<Type>Aggregates` and its per-function types (sum, max…), each over the columns the function takes. */
export function defineAggregates(sc: SchemaComposer<QueryContext>, t: EntityTable): void {
  const fields: ObjectTypeComposerFieldConfigMapDefinition<AggregateResult, QueryContext> = {
    keys: { type: '[String!]', description: 'The values of the groupBy columns (groupedAggregates only).' },
    count: { type: 'Int!', description: 'The number of rows.' },
  };
  for (const fn of AGGREGATE_FNS) {
    const columns = aggregateColumns(t, fn);
    if (columns.length === 0) continue;
    const typeName = t.names.aggregatesOf(fn);
    sc.createObjectTC({
      name: typeName,
      fields: Object.fromEntries(columns.map((c) => [c.name, { type: aggregateType(fn, c, typeOf) }])),
    });
    fields[fn] = {
      type: typeName,
      description: UNSAFE_FNS.has(fn) ? `${fn} of each column (needs idx-query --unsafe)` : `${fn} of each column`,
      resolve: (agg: AggregateResult, _args: unknown, ctx: QueryContext) => {
        if (UNSAFE_FNS.has(fn) && !ctx.settings.unsafe) throw unsafeError(fn);
        return agg[fn] ?? {};
      },
    };
  }
  sc.createObjectTC({ name: t.names.aggregates, fields });
}

/** `<Type>Having`: groupedAggregates' having, per function and column. */
export function defineHaving(sc: SchemaComposer<QueryContext>, t: EntityTable): void {
  const fields: Record<string, string> = { AND: `[${t.names.having}!]`, OR: `[${t.names.having}!]` };
  const columns = havingColumns(t);
  if (columns.length > 0) {
    for (const c of columns) {
      const filter = HAVING_FILTER[c.kind]!;
      if (!sc.has(filter.name)) {
        sc.createInputTC({
          name: filter.name,
          fields: Object.fromEntries(
            ['equalTo', 'notEqualTo', 'greaterThan', 'greaterThanOrEqualTo', 'lessThan', 'lessThanOrEqualTo'].map((op) => [op, filter.operand]),
          ),
        });
      }
    }
    for (const fn of AGGREGATE_FNS) {
      const name = t.names.havingOf(fn);
      sc.createInputTC({ name, fields: Object.fromEntries(columns.map((c) => [c.name, HAVING_FILTER[c.kind]!.name])) });
      fields[fn] = name;
    }
  }
  sc.createInputTC({ name: t.names.having, fields });
}

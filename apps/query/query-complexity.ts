import {
  getDirectiveValues,
  getNamedType,
  GraphQLError,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  isAbstractType,
  isCompositeType,
  isInterfaceType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLCompositeType,
  type GraphQLFieldMap,
  type GraphQLSchema,
  type SelectionSetNode,
} from 'graphql';

/**
 * The complexity of a request: the number of fields it selects that select fields of their own
 * (connections, `nodes`, relations, `pageInfo`, aggregates, `_metadata`), each counting 1 where it
 * is written. It follows SubQuery's query service (graphql-query-complexity's simple estimator:
 * fields, not rows) with one difference: scalar fields cost nothing, as they are columns of rows
 * already read. Counting every field, the reference's default limit of 10 would refuse an ordinary
 * page (`totalCount`, five columns, a relation and `pageInfo` is 12 fields); counting the fields
 * that fetch, 10 allows ten connections or relations in one request.
 * - Each selection counts where it is written: a field selected twice, or a fragment spread
 *   twice, counts twice; aliases are separate fields.
 * - `@skip(if: true)` / `@include(if: false)` remove a selection.
 * - Fields the type does not define cost nothing: `__typename`, `__schema`, `__type`
 *   (introspection is free here; request-limits.ts bounds it apart).
 * - Under an interface or union, each possible type is summed apart and the largest counts.
 * - The named operation counts; without a name, every operation of the document (the request
 *   then has one: several without operationName fail before this).
 * Rows are not counted: page size is bounded by `--query-limit` on its own.
 */
export function queryComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>>,
): number {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const vars = variables as Record<string, unknown>;

  const skipped = (node: { directives?: readonly unknown[] }): boolean => {
    if (!node.directives?.length) return false;
    const n = node as Parameters<typeof getDirectiveValues>[1];
    return getDirectiveValues(GraphQLSkipDirective, n, vars)?.if === true || getDirectiveValues(GraphQLIncludeDirective, n, vars)?.if === false;
  };

  // `active` guards against a fragment cycle, which validation already refuses
  function measure(set: SelectionSetNode, type: GraphQLCompositeType, active: Set<string>): number {
    const fields: GraphQLFieldMap<unknown, unknown> = isObjectType(type) || isInterfaceType(type) ? type.getFields() : {};
    const possible = isAbstractType(type) ? schema.getPossibleTypes(type).map((t) => t.name) : [type.name];
    const perType = new Map<string, number>();
    const add = (cost: number, types: readonly string[]) => {
      for (const name of types) perType.set(name, (perType.get(name) ?? 0) + cost);
    };
    const typesOf = (t: GraphQLCompositeType) => (isAbstractType(t) ? schema.getPossibleTypes(t).map((p) => p.name) : [t.name]);
    for (const sel of set.selections) {
      if (skipped(sel)) continue;
      if (sel.kind === Kind.FIELD) {
        const def = fields[sel.name.value];
        if (def === undefined) continue;
        const named = getNamedType(def.type);
        if (!isCompositeType(named)) continue;
        add(1 + (sel.selectionSet ? measure(sel.selectionSet, named, active) : 0), possible);
      } else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? schema.getType(sel.typeCondition.name.value) : type;
        if (!isCompositeType(on)) continue;
        add(measure(sel.selectionSet, on, active), typesOf(on));
      } else {
        const name = sel.name.value;
        const fragment = fragments.get(name);
        const on = fragment && schema.getType(fragment.typeCondition.name.value);
        if (fragment === undefined || !isCompositeType(on) || active.has(name)) continue;
        add(measure(fragment.selectionSet, on, new Set(active).add(name)), typesOf(on));
      }
    }
    return Math.max(0, ...perType.values());
  }

  let total = 0;
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    if (typeof operationName === 'string' && d.name?.value !== operationName) continue;
    const root = d.operation === 'query' ? schema.getQueryType() : d.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
    if (root != null) total += measure(d.selectionSet, root, new Set());
  }
  return total;
}

export function complexityError(complexity: number, limit: number): GraphQLError {
  return new GraphQLError(
    `query complexity ${complexity} exceeds the limit ${limit} (--query-complexity): the complexity counts the connections, relations and other object fields the query selects; select fewer or raise --query-complexity`,
    { extensions: { code: 'QUERY_TOO_COMPLEX', complexity, limit } },
  );
}

import {
  getArgumentValues,
  getNamedType,
  GraphQLError,
  isObjectType,
  type DocumentNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import { subfields } from './collect-fields.ts';

/**
 * The complexity of a query, by hand in the spirit of graphql-query-complexity but measuring what
 * costs here: rows read and statements run. Every field that reads rows or runs a statement (they
 * carry `extensions.idxCost`) costs one per `--query-limit` rows it may touch, at least 1:
 * - a connection's page (when nodes, edges or pageInfo are selected): parents × its page
 *   (`first`/`last`, else the limit); its nodes/edges multiply what is nested under them by that
 *   many rows;
 * - a single-row relation or lookup: parents (rows are batched, so 100 parents cost 1);
 * - totalCount, aggregates, groupedAggregates, _metadata: one statement per batch of parents.
 * Scalars and introspection cost nothing. So a page of 100 transfers with their `from` and `to`
 * accounts costs 3, the same with totalCount 4, and accounts with 5 transfers each costs 1 + 5.
 */
/**
 * How much a field costs, in its `extensions[COST]`: `connection` and `row` fields read rows,
 * `statement` fields run one count or aggregate.
 */
export type FieldCost = 'connection' | 'row' | 'statement';
export const COST = 'idxCost';

export function queryComplexity(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | null | undefined,
  variables: Readonly<Record<string, unknown>>,
  queryLimit: number,
): number {
  const op = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === 'OperationDefinition' && (operationName == null || d.name?.value === operationName),
  );
  if (op === undefined) return 0;
  const root = op.operation === 'query' ? schema.getQueryType() : op.operation === 'mutation' ? schema.getMutationType() : schema.getSubscriptionType();
  if (root == null) return 0;
  const fragments = Object.fromEntries(
    document.definitions.flatMap((d) => (d.kind === 'FragmentDefinition' ? [[d.name.value, d] as const] : [])),
  );
  const sel = { fragments, variableValues: variables };
  const units = (rows: number) => Math.max(1, Math.ceil(rows / queryLimit));

  function visit(type: GraphQLObjectType, set: SelectionSetNode, rows: number, pageRows?: number): number {
    let cost = 0;
    // a synthetic field node holding the set, so fragments and @skip/@include resolve as usual
    const fields = subfields([{ kind: 'Field', name: { kind: 'Name', value: '' }, selectionSet: set } as never], sel);
    for (const [name, nodes] of fields) {
      if (name.startsWith('__')) continue;
      const def = type.getFields()[name];
      if (def === undefined) continue;
      const next = getNamedType(def.type);
      for (const node of nodes) {
        const kind = def.extensions?.[COST] as FieldCost | undefined;
        const children = node.selectionSet;
        const childType = isObjectType(next) ? next : undefined;
        if (kind === 'connection') {
          let args: Record<string, unknown> = {};
          try {
            args = getArgumentValues(def, node, variables as Record<string, unknown>);
          } catch {
            // invalid arguments fail validation or execution with their own message
          }
          const page = Math.min(queryLimit, Number(args.first ?? args.last ?? queryLimit) || 0);
          const read = rows * Math.max(page, 1);
          // only nodes, edges and pageInfo read the page; totalCount and aggregates cost their own statement
          const selected = children ? subfields([node], sel) : new Map();
          if (['nodes', 'edges', 'pageInfo'].some((f) => selected.has(f))) cost += units(read);
          if (children && childType) cost += visit(childType, children, rows, read);
        } else if (kind === 'row' || kind === 'statement') {
          cost += units(rows);
          if (children && childType) cost += visit(childType, children, rows);
        } else if (children && childType) {
          // nodes/edges of a connection carry its page; other connection fields stay per parent
          const inner = pageRows !== undefined && (name === 'nodes' || name === 'edges') ? pageRows : rows;
          cost += visit(childType, children, inner);
        }
      }
    }
    return cost;
  }
  return visit(root, op.selectionSet, 1);
}

export function complexityError(complexity: number, limit: number): GraphQLError {
  return new GraphQLError(`query complexity ${complexity} exceeds the limit ${limit} (--query-complexity); ask for fewer or smaller connections, or raise --query-complexity`, {
    extensions: { code: 'QUERY_TOO_COMPLEX', complexity, limit },
  });
}

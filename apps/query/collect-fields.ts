import {
  getDirectiveValues,
  GraphQLIncludeDirective,
  GraphQLSkipDirective,
  Kind,
  type FieldNode,
  type FragmentDefinitionNode,
  type SelectionSetNode,
} from 'graphql';

export interface SelectionContext {
  fragments: Readonly<Record<string, FragmentDefinitionNode>>;
  variableValues: Readonly<Record<string, unknown>>;
}

/**
 * The fields selected under `nodes` (one field, possibly written several times), grouped by field
 * name, with fragments inlined and `@skip`/`@include` applied: what a resolver needs to know to
 * fetch exactly the requested aggregates in one statement.
 */
export function subfields(nodes: readonly FieldNode[], ctx: SelectionContext): Map<string, FieldNode[]> {
  const out = new Map<string, FieldNode[]>();
  for (const node of nodes) if (node.selectionSet) collect(node.selectionSet, ctx, out, new Set());
  return out;
}

function collect(set: SelectionSetNode, ctx: SelectionContext, out: Map<string, FieldNode[]>, seen: Set<string>): void {
  for (const sel of set.selections) {
    if (!included(sel, ctx)) continue;
    if (sel.kind === Kind.FIELD) {
      const list = out.get(sel.name.value) ?? [];
      list.push(sel);
      out.set(sel.name.value, list);
    } else if (sel.kind === Kind.INLINE_FRAGMENT) {
      collect(sel.selectionSet, ctx, out, seen);
    } else {
      const name = sel.name.value;
      const frag = ctx.fragments[name];
      if (frag === undefined || seen.has(name)) continue;
      seen.add(name);
      collect(frag.selectionSet, ctx, out, seen);
    }
  }
}

function included(node: Parameters<typeof getDirectiveValues>[1], ctx: SelectionContext): boolean {
  const vars = ctx.variableValues as Record<string, unknown>;
  if (getDirectiveValues(GraphQLSkipDirective, node, vars)?.if === true) return false;
  if (getDirectiveValues(GraphQLIncludeDirective, node, vars)?.if === false) return false;
  return true;
}

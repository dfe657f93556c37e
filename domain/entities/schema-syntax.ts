import { Kind, type ConstArgumentNode, type ConstDirectiveNode, type ConstValueNode, type TypeNode } from 'graphql';

// Reading a schema's GraphQL nodes: a field's type shape, a node's directives and their arguments.

export interface TypeShape {
  named: string;
  nullable: boolean;
  list: boolean;
  itemNullable: boolean;
  /** `[[T]]`: not supported */
  nested: boolean;
}

export function unwrap(type: TypeNode): TypeShape {
  let t = type;
  let nullable = true;
  if (t.kind === Kind.NON_NULL_TYPE) {
    nullable = false;
    t = t.type;
  }
  if (t.kind === Kind.LIST_TYPE) {
    let item = t.type;
    let itemNullable = true;
    if (item.kind === Kind.NON_NULL_TYPE) {
      itemNullable = false;
      item = item.type;
    }
    let nested = false;
    while (item.kind !== Kind.NAMED_TYPE) {
      nested = true;
      item = item.type;
    }
    return { named: item.name.value, nullable, list: true, itemNullable, nested };
  }
  return { named: t.name.value, nullable, list: false, itemNullable: false, nested: false };
}

export function hasDirective(node: { directives?: readonly ConstDirectiveNode[] }, name: string): boolean {
  return directive(node, name) !== undefined;
}

export function directive(node: { directives?: readonly ConstDirectiveNode[] }, name: string): ConstDirectiveNode | undefined {
  return node.directives?.find((d) => d.name.value === name);
}

export function argument(d: ConstDirectiveNode, name: string): ConstArgumentNode | undefined {
  return d.arguments?.find((a) => a.name.value === name);
}

export function stringArg(d: ConstDirectiveNode, name: string): string | undefined {
  const v: ConstValueNode | undefined = argument(d, name)?.value;
  return v?.kind === Kind.STRING ? v.value : undefined;
}

export function booleanArg(d: ConstDirectiveNode, name: string): boolean | undefined {
  const v = argument(d, name)?.value;
  return v?.kind === Kind.BOOLEAN ? v.value : undefined;
}

import type { ObjectTypeDefinitionNode } from 'graphql';
import type { Problem } from '../errors.ts';
import { SCALARS, type EnumModel, type FieldType, type Scalar } from './entity-model.ts';
import type { TypeShape } from './schema-syntax.ts';

export interface Located {
  loc?: { startToken: { line: number; column: number } };
}

/** Where a schema's problems are collected, each with its line and column, to be reported at once. */
export interface SchemaProblems {
  readonly list: Problem[];
  report(node: Located, message: string): void;
  /** `__proto__` as a key of a record sets the record's prototype instead of a value: no program may take it as a name. */
  protoName(name: string, node: Located, what: string): boolean;
}

export function schemaProblems(file: string): SchemaProblems {
  const list: Problem[] = [];
  const report = (node: Located, message: string) => {
    list.push({ path: file, message, line: node.loc?.startToken.line, column: node.loc?.startToken.column });
  };
  return {
    list,
    report,
    protoName(name, node, what) {
      if (name !== '__proto__') return true;
      report(node, `${what}: "__proto__" cannot be a name (it is every JavaScript object's prototype); rename it`);
      return false;
    },
  };
}

/** The schema's types by kind, as its definitions declared them: what a field's type may name. */
export interface DeclaredTypes {
  entityNodes: readonly ObjectTypeDefinitionNode[];
  jsonNodes: readonly ObjectTypeDefinitionNode[];
  enums: readonly EnumModel[];
  names: { entity: ReadonlySet<string>; json: ReadonlySet<string>; enum: ReadonlySet<string> };
}

export function declaredTypes(entityNodes: ObjectTypeDefinitionNode[], jsonNodes: ObjectTypeDefinitionNode[], enums: EnumModel[]): DeclaredTypes {
  const names = {
    entity: new Set(entityNodes.map((n) => n.name.value)),
    json: new Set(jsonNodes.map((n) => n.name.value)),
    enum: new Set(enums.map((e) => e.name)),
  };
  return { entityNodes, jsonNodes, enums, names };
}

/** A field's type, by what the schema declares its name to be; undefined (reported) when it declares none. */
export function resolveType(types: DeclaredTypes, problems: SchemaProblems, shape: TypeShape, where: string, node: Located): FieldType | undefined {
  const named = shape.named;
  if (shape.nested) {
    problems.report(node, `${where}: lists of lists are not supported; use a @jsonField type or JSON`);
    return undefined;
  }
  if ((SCALARS as readonly string[]).includes(named)) return { kind: 'scalar', scalar: named as Scalar };
  if (types.names.enum.has(named)) return { kind: 'enum', name: named };
  if (types.names.json.has(named)) return { kind: 'json', name: named };
  if (types.names.entity.has(named)) return { kind: 'entity', entity: named };
  problems.report(node, `${where}: unknown type "${named}"; expected one of ${SCALARS.join(', ')}, an enum, an @entity or a @jsonField type`);
  return undefined;
}

import { GraphQLError, Kind, parse, type EnumTypeDefinitionNode, type ObjectTypeDefinitionNode } from 'graphql';
import { ValidationError } from '../errors.ts';
import { checkBracketDepth, checkTextSize, INPUT_LIMITS } from '../input-limits.ts';
import { SCALARS, type EnumModel, type FieldModel, type JsonTypeModel, type SchemaModel } from './entity-model.ts';
import { LAYOUT } from './layout.ts';
import { ENUM_ASIDE_SUFFIX, enumTypeName, identifierBytes, MAX_IDENTIFIER_BYTES } from './names.ts';
import { readEntity } from './read-entity-type.ts';
import { declaredTypes, resolveType, schemaProblems, type DeclaredTypes, type Located, type SchemaProblems } from './schema-reader.ts';
import { hasDirective, unwrap } from './schema-syntax.ts';

const TYPE_DIRECTIVES = new Set(['entity', 'jsonField', 'compositeIndexes', 'fullText']);

/**
 * Reads a SubQuery `schema.graphql` into the entity model. Every problem is reported at once,
 * each with its line and column, as a ValidationError naming `file`.
 */
export function parseSchema(text: string, file = 'schema.graphql'): SchemaModel {
  // bounded before graphql's parser, which recurses into brackets and has no limit of its own by default
  checkTextSize(text, file, INPUT_LIMITS.maxFileBytes);
  checkBracketDepth(text, file);
  let doc;
  try {
    doc = parse(text, { maxTokens: INPUT_LIMITS.maxSchemaTokens });
  } catch (e) {
    if (!(e instanceof GraphQLError)) throw e;
    const at = e.locations?.[0];
    throw new ValidationError(file, [{ path: file, message: e.message.replace(/^Syntax Error: /, 'syntax error: '), line: at?.line, column: at?.column }]);
  }

  const problems = schemaProblems(file);
  const types = readDefinitions(doc.definitions, problems);
  const jsonTypes = types.jsonNodes.map((node) => readJsonType(types, problems, node));
  const reader = { types, problems, tables: new Map<string, string>() };
  const entities = types.entityNodes.map((node) => readEntity(reader, node));

  if (types.entityNodes.length === 0 && problems.list.length === 0) {
    problems.list.push({ path: file, message: 'the schema declares no @entity type' });
  }
  if (problems.list.length > 0) throw new ValidationError(file, problems.list);
  return { layout: LAYOUT, entities, enums: [...types.enums], jsonTypes };
}

/** The schema's definitions by kind: enums read, object types sorted into @entity and @jsonField types. */
function readDefinitions(definitions: readonly { kind: Kind }[], problems: SchemaProblems): DeclaredTypes {
  const { report } = problems;
  const entityNodes: ObjectTypeDefinitionNode[] = [];
  const jsonNodes: ObjectTypeDefinitionNode[] = [];
  const enums: EnumModel[] = [];
  const typeNames = new Set<string>();
  const claimName = (name: string, node: Located): boolean => {
    if (!problems.protoName(name, node, `type ${name}`)) return false;
    if (typeNames.has(name)) {
      report(node, `type ${name} is defined twice`);
      return false;
    }
    if ((SCALARS as readonly string[]).includes(name)) {
      report(node, `${name} is a built-in scalar and cannot be redefined`);
      return false;
    }
    typeNames.add(name);
    return true;
  };

  for (const def of definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      const node = def as EnumTypeDefinitionNode;
      if (claimName(node.name.value, node)) enums.push(readEnum(problems, node, enums));
    } else if (def.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const node = def as ObjectTypeDefinitionNode;
      const name = node.name.value;
      if (!claimName(name, node)) continue;
      for (const d of node.directives ?? []) {
        if (!TYPE_DIRECTIVES.has(d.name.value))
          report(d, `${name}: unknown directive @${d.name.value}; types take @entity, @jsonField, @compositeIndexes or @fullText`);
      }
      const isEntity = hasDirective(node, 'entity');
      const isJson = hasDirective(node, 'jsonField');
      if (isEntity && isJson) report(node, `${name}: a type is either an @entity or a @jsonField, not both`);
      else if (isEntity) entityNodes.push(node);
      else if (isJson) jsonNodes.push(node);
      else report(node, `${name}: every type needs @entity (a table) or @jsonField (stored as JSON inside an entity)`);
    } else if (def.kind !== Kind.DIRECTIVE_DEFINITION && def.kind !== Kind.SCALAR_TYPE_DEFINITION) {
      // Directive and scalar declarations are allowed so that editors can validate the schema.
      report(def as Located, `unsupported definition (${def.kind}); use types with @entity or @jsonField, and enums`);
    }
  }
  return declaredTypes(entityNodes, jsonNodes, enums);
}

/** One enum and its database type; `before`: the enums read so far, whose type names it must not take. */
function readEnum(problems: SchemaProblems, def: EnumTypeDefinitionNode, before: readonly EnumModel[]): EnumModel {
  const { report } = problems;
  const values: string[] = [];
  for (const v of def.values ?? []) {
    if (values.includes(v.name.value)) report(v, `enum ${def.name.value} lists ${v.name.value} twice`);
    else if (problems.protoName(v.name.value, v, `enum ${def.name.value} value ${v.name.value}`)) values.push(v.name.value);
  }
  if ((def.values ?? []).length === 0) report(def, `enum ${def.name.value} has no values`);
  const pgName = enumTypeName(def.name.value);
  // idx renames the type aside (…__before_migration) while it migrates its values: that name must fit too
  if (identifierBytes(`${pgName}${ENUM_ASIDE_SUFFIX}`) > MAX_IDENTIFIER_BYTES) {
    report(
      def,
      `enum ${def.name.value}: its database type name "${pgName}" is too long (at most ${MAX_IDENTIFIER_BYTES - ENUM_ASIDE_SUFFIX.length} bytes); shorten the name`,
    );
  } else {
    const other = before.find((e) => e.pgName === pgName);
    if (other !== undefined) report(def, `enums ${other.name} and ${def.name.value} would both be the database type "${pgName}"; rename one`);
  }
  return { name: def.name.value, pgName, values };
}

/** One @jsonField type: its fields, which take no directives and refer to no entity. */
function readJsonType(types: DeclaredTypes, problems: SchemaProblems, node: ObjectTypeDefinitionNode): JsonTypeModel {
  const fields: FieldModel[] = [];
  for (const f of node.fields ?? []) {
    const where = `${node.name.value}.${f.name.value}`;
    if (!problems.protoName(f.name.value, f, where)) continue;
    for (const d of f.directives ?? []) problems.report(d, `${where}: @${d.name.value} is not allowed in a @jsonField type`);
    const shape = unwrap(f.type);
    const type = resolveType(types, problems, shape, where, f.type);
    if (type === undefined) continue;
    if (type.kind === 'entity') {
      problems.report(f.type, `${where}: a @jsonField type cannot refer to the entity ${type.entity}; store its id as a String`);
      continue;
    }
    fields.push({ name: f.name.value, type, nullable: shape.nullable, list: shape.list, itemNullable: shape.itemNullable });
  }
  return { name: node.name.value, fields };
}

import {
  GraphQLError,
  Kind,
  parse,
  type ConstArgumentNode,
  type ConstDirectiveNode,
  type ConstValueNode,
  type FieldDefinitionNode,
  type ObjectTypeDefinitionNode,
  type TypeNode,
} from 'graphql';
import { ValidationError, type Problem } from '../errors.ts';
import { checkBracketDepth, checkTextSize, INPUT_LIMITS } from '../input-limits.ts';
import { CHAIN_COLUMN } from './chain-tables.ts';
import {
  FULL_TEXT_COLUMN,
  SCALARS,
  type EntityModel,
  type EnumModel,
  type FieldModel,
  type FieldType,
  type FullTextModel,
  type IndexModel,
  type JsonTypeModel,
  type Scalar,
  type SchemaModel,
} from './entity-model.ts';
import { LAYOUT } from './layout.ts';
import { columnName, ENUM_ASIDE_SUFFIX, enumTypeName, MAX_IDENTIFIER_BYTES, tableName } from './names.ts';

/**
 * Columns idx may add to an entity table besides its fields; a field may not map onto one of them.
 * `created_at`/`updated_at` are free: idx's own move aside (domain/entities/timestamp-columns.ts).
 */
const RESERVED_COLUMNS = new Set(['__block_range', '__created_at', '__updated_at', CHAIN_COLUMN, '_id', FULL_TEXT_COLUMN]);

const TYPE_DIRECTIVES = new Set(['entity', 'jsonField', 'compositeIndexes', 'fullText']);
const FIELD_DIRECTIVES = new Set(['index', 'derivedFrom']);

// PostgreSQL would cut a longer table, column or type name, and two such names could silently become one: refused instead.
const byteLength = (s: string) => new TextEncoder().encode(s).length;
const tooLong = (what: string) =>
  `${what} is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES} bytes (PostgreSQL would cut it, and two such names could become one); shorten the name`;

interface Located {
  loc?: { startToken: { line: number; column: number } };
}

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

  const problems: Problem[] = [];
  const report = (node: Located, message: string) =>
    problems.push({ path: file, message, line: node.loc?.startToken.line, column: node.loc?.startToken.column });

  const entityNodes: ObjectTypeDefinitionNode[] = [];
  const jsonNodes: ObjectTypeDefinitionNode[] = [];
  const enums: EnumModel[] = [];
  const typeNames = new Set<string>();

  for (const def of doc.definitions) {
    if (def.kind === Kind.ENUM_TYPE_DEFINITION) {
      if (!claimName(def.name.value, def)) continue;
      const values: string[] = [];
      for (const v of def.values ?? []) {
        if (values.includes(v.name.value)) report(v, `enum ${def.name.value} lists ${v.name.value} twice`);
        else if (protoName(v.name.value, v, `enum ${def.name.value} value ${v.name.value}`)) values.push(v.name.value);
      }
      if ((def.values ?? []).length === 0) report(def, `enum ${def.name.value} has no values`);
      const pgName = enumTypeName(def.name.value);
      // idx renames the type aside (…__before_migration) while it migrates its values: that name must fit too
      if (byteLength(`${pgName}${ENUM_ASIDE_SUFFIX}`) > MAX_IDENTIFIER_BYTES) {
        report(
          def,
          `enum ${def.name.value}: its database type name "${pgName}" is too long (at most ${MAX_IDENTIFIER_BYTES - ENUM_ASIDE_SUFFIX.length} bytes); shorten the name`,
        );
      } else {
        const other = enums.find((e) => e.pgName === pgName);
        if (other !== undefined) report(def, `enums ${other.name} and ${def.name.value} would both be the database type "${pgName}"; rename one`);
      }
      enums.push({ name: def.name.value, pgName, values });
    } else if (def.kind === Kind.OBJECT_TYPE_DEFINITION) {
      const name = def.name.value;
      if (!claimName(name, def)) continue;
      for (const d of def.directives ?? []) {
        if (!TYPE_DIRECTIVES.has(d.name.value))
          report(d, `${name}: unknown directive @${d.name.value}; types take @entity, @jsonField, @compositeIndexes or @fullText`);
      }
      const isEntity = hasDirective(def, 'entity');
      const isJson = hasDirective(def, 'jsonField');
      if (isEntity && isJson) report(def, `${name}: a type is either an @entity or a @jsonField, not both`);
      else if (isEntity) entityNodes.push(def);
      else if (isJson) jsonNodes.push(def);
      else report(def, `${name}: every type needs @entity (a table) or @jsonField (stored as JSON inside an entity)`);
    } else if (def.kind !== Kind.DIRECTIVE_DEFINITION && def.kind !== Kind.SCALAR_TYPE_DEFINITION) {
      // Directive and scalar declarations are allowed so that editors can validate the schema.
      report(def, `unsupported definition (${def.kind}); use types with @entity or @jsonField, and enums`);
    }
  }

  /** `__proto__` as a key of a record sets the record's prototype instead of a value: no program may take it as a name. */
  function protoName(name: string, node: Located, what: string): boolean {
    if (name !== '__proto__') return true;
    report(node, `${what}: "__proto__" cannot be a name (it is every JavaScript object's prototype); rename it`);
    return false;
  }

  function claimName(name: string, node: Located): boolean {
    if (!protoName(name, node, `type ${name}`)) return false;
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
  }

  const entityNames = new Set(entityNodes.map((n) => n.name.value));
  const jsonNames = new Set(jsonNodes.map((n) => n.name.value));
  const enumNames = new Set(enums.map((e) => e.name));

  function resolveType(shape: TypeShape, where: string, node: Located): FieldType | undefined {
    const named = shape.named;
    if (shape.nested) {
      report(node, `${where}: lists of lists are not supported; use a @jsonField type or JSON`);
      return undefined;
    }
    if ((SCALARS as readonly string[]).includes(named)) return { kind: 'scalar', scalar: named as Scalar };
    if (enumNames.has(named)) return { kind: 'enum', name: named };
    if (jsonNames.has(named)) return { kind: 'json', name: named };
    if (entityNames.has(named)) return { kind: 'entity', entity: named };
    report(node, `${where}: unknown type "${named}"; expected one of ${SCALARS.join(', ')}, an enum, an @entity or a @jsonField type`);
    return undefined;
  }

  const jsonTypes: JsonTypeModel[] = jsonNodes.map((node) => {
    const fields: FieldModel[] = [];
    for (const f of node.fields ?? []) {
      const where = `${node.name.value}.${f.name.value}`;
      if (!protoName(f.name.value, f, where)) continue;
      for (const d of f.directives ?? []) report(d, `${where}: @${d.name.value} is not allowed in a @jsonField type`);
      const shape = unwrap(f.type);
      const type = resolveType(shape, where, f.type);
      if (type === undefined) continue;
      if (type.kind === 'entity') {
        report(f.type, `${where}: a @jsonField type cannot refer to the entity ${type.entity}; store its id as a String`);
        continue;
      }
      fields.push({ name: f.name.value, type, nullable: shape.nullable, list: shape.list, itemNullable: shape.itemNullable });
    }
    return { name: node.name.value, fields };
  });

  const tables = new Map<string, string>(); // table → entity
  const entities: EntityModel[] = entityNodes.map((node) => readEntity(node));

  function readEntity(node: ObjectTypeDefinitionNode): EntityModel {
    const name = node.name.value;
    const fields: FieldModel[] = [];
    const indexes: IndexModel[] = [];
    const columns = new Map<string, string>();
    const seen = new Set<string>();

    for (const f of node.fields ?? []) {
      const fname = f.name.value;
      const where = `${name}.${fname}`;
      if (seen.has(fname)) {
        report(f, `${where} is defined twice`);
        continue;
      }
      seen.add(fname);
      if (!protoName(fname, f, where)) continue;
      for (const d of f.directives ?? []) {
        if (!FIELD_DIRECTIVES.has(d.name.value)) report(d, `${where}: unknown directive @${d.name.value}; fields take @index or @derivedFrom`);
      }
      const field = readField(f, where);
      if (field === undefined) continue;
      if (field.column !== undefined) {
        const other = columns.get(field.column);
        if (byteLength(field.column) > MAX_IDENTIFIER_BYTES) report(f, tooLong(`${where}: its column name "${field.column}"`));
        else if (other !== undefined) report(f, `${where} and ${name}.${other} would both be stored in column "${field.column}"; rename one`);
        else if (RESERVED_COLUMNS.has(field.column)) report(f, `${where}: column "${field.column}" is reserved for idx's own use; rename the field`);
        columns.set(field.column, fname);
      }
      if (field.index && field.column !== undefined && fname !== 'id') indexes.push({ columns: [field.column], unique: field.index.unique });
      fields.push(field);
    }

    const id = fields.find((f) => f.name === 'id');
    if (id === undefined || id.type.kind !== 'scalar' || id.type.scalar !== 'ID' || id.nullable || id.list) {
      report(id ? (node.fields ?? []).find((f) => f.name.value === 'id')! : node, `${name}: an entity needs the field "id: ID!"`);
    }

    for (const d of node.directives ?? []) {
      if (d.name.value === 'compositeIndexes') indexes.push(...readCompositeIndexes(d, name, fields));
    }

    const table = tableName(name);
    if (byteLength(table) > MAX_IDENTIFIER_BYTES) report(node, tooLong(`${name}: its table name "${table}"`));
    else if (tables.has(table)) report(node, `entities ${tables.get(table)} and ${name} would both be stored in table "${table}"; rename one`);
    tables.set(table, name);
    const entity: EntityModel = { name, table, fields, indexes };
    const fullText = directive(node, 'fullText');
    if (fullText !== undefined) {
      const model = readFullText(fullText, name, fields);
      if (model !== undefined) entity.fullText = model;
    }
    if (node.description) entity.description = node.description.value;
    return entity;
  }

  function readField(f: FieldDefinitionNode, where: string): FieldModel | undefined {
    const shape = unwrap(f.type);
    const type = resolveType(shape, where, f.type);
    if (type === undefined) return undefined;
    const field: FieldModel = { name: f.name.value, type, nullable: shape.nullable, list: shape.list, itemNullable: shape.itemNullable };

    const derived = directive(f, 'derivedFrom');
    const index = directive(f, 'index');
    if (derived) {
      const target = stringArg(derived, 'field');
      if (target === undefined) report(derived, `${where}: @derivedFrom needs a field, e.g. @derivedFrom(field: "owner")`);
      if (type.kind !== 'entity') report(f.type, `${where}: @derivedFrom needs an @entity type, not ${shape.named}`);
      if (index) report(index, `${where}: a @derivedFrom field has no column and cannot be indexed`);
      if (target !== undefined && type.kind === 'entity') checkDerivedTarget(derived, where, type.entity, target);
      field.derivedFrom = target;
      return field;
    }
    if (type.kind === 'entity' && shape.list) {
      report(f.type, `${where}: a list of entities needs @derivedFrom(field: "…") naming the field of ${type.entity} that points back`);
      return undefined;
    }
    field.column = columnName(field.name, type.kind === 'entity');
    if (index) {
      if (type.kind === 'json' || shape.list || (type.kind === 'scalar' && type.scalar === 'JSON')) {
        report(index, `${where}: JSON and list fields cannot be indexed`);
      } else {
        field.index = { unique: booleanArg(index, 'unique') ?? false };
      }
    } else if (type.kind === 'entity') {
      // Relation columns are always indexed, as in SubQuery: lookups by the related id are the common query.
      field.index = { unique: false };
    }
    return field;
  }

  function checkDerivedTarget(node: Located, where: string, entity: string, target: string) {
    const def = entityNodes.find((n) => n.name.value === entity);
    const tf = def?.fields?.find((x) => x.name.value === target);
    const owner = where.slice(0, where.indexOf('.'));
    if (tf === undefined) {
      report(node, `${where}: @derivedFrom(field: "${target}") but ${entity} has no field "${target}"`);
    } else if (unwrap(tf.type).named !== owner || unwrap(tf.type).list || directive(tf, 'derivedFrom')) {
      report(node, `${where}: @derivedFrom(field: "${target}") needs ${entity}.${target} to be a relation to ${owner}`);
    }
  }

  function readCompositeIndexes(d: ConstDirectiveNode, entity: string, fields: FieldModel[]): IndexModel[] {
    const arg = argument(d, 'fields');
    if (arg?.value.kind !== Kind.LIST) {
      report(d, `${entity}: @compositeIndexes needs fields: [["a", "b"], …]`);
      return [];
    }
    const out: IndexModel[] = [];
    for (const group of arg.value.values) {
      const names = group.kind === Kind.LIST ? group.values.map((v) => (v.kind === Kind.STRING ? v.value : undefined)) : [];
      if (names.length < 2 || names.some((n) => n === undefined)) {
        report(group, `${entity}: each @compositeIndexes entry is a list of two or more field names`);
        continue;
      }
      const cols: string[] = [];
      for (const n of names as string[]) {
        const f = fields.find((x) => x.name === n);
        if (f?.column === undefined) report(group, `${entity}: @compositeIndexes names "${n}", which is not a stored field of ${entity}`);
        else cols.push(f.column);
      }
      if (cols.length === names.length) out.push({ columns: cols, unique: false });
    }
    return out;
  }

  function readFullText(d: ConstDirectiveNode, entity: string, fields: FieldModel[]): FullTextModel | undefined {
    for (const a of d.arguments ?? [])
      if (a.name.value !== 'fields' && a.name.value !== 'language') report(a, `${entity}: @fullText takes fields and language, not ${a.name.value}`);
    const arg = argument(d, 'fields');
    const names = arg?.value.kind === Kind.LIST ? arg.value.values.map((v) => (v.kind === Kind.STRING ? v.value : undefined)) : [];
    if (names.length === 0 || names.some((n) => n === undefined)) {
      report(d, `${entity}: @fullText needs fields: ["a", …], the String fields to search, e.g. @fullText(fields: ["name"], language: "english")`);
      return undefined;
    }
    const language = argument(d, 'language') === undefined ? 'english' : stringArg(d, 'language');
    // a configuration name goes into the DDL as a literal: keep it to what PostgreSQL names them
    if (language === undefined || !/^[a-z_][a-z0-9_]*$/.test(language)) {
      report(d, `${entity}: @fullText language must be a PostgreSQL text search configuration such as "english" or "simple"`);
      return undefined;
    }
    const columns: string[] = [];
    for (const n of names as string[]) {
      const f = fields.find((x) => x.name === n);
      if (f === undefined) report(d, `${entity}: @fullText names "${n}", which is not a field of ${entity}`);
      else if (f.column === undefined || f.list || f.type.kind !== 'scalar' || f.type.scalar !== 'String')
        report(d, `${entity}: @fullText field "${n}" must be a String field (not a list, a relation or another type)`);
      else if (columns.includes(f.column)) report(d, `${entity}: @fullText names "${n}" twice`);
      else columns.push(f.column);
    }
    return columns.length === names.length ? { fields: names as string[], columns, language } : undefined;
  }

  if (entityNodes.length === 0 && problems.length === 0) {
    problems.push({ path: file, message: 'the schema declares no @entity type' });
  }
  if (problems.length > 0) throw new ValidationError(file, problems);
  return { layout: LAYOUT, entities, enums, jsonTypes };
}

interface TypeShape {
  named: string;
  nullable: boolean;
  list: boolean;
  itemNullable: boolean;
  /** `[[T]]`: not supported */
  nested: boolean;
}

function unwrap(type: TypeNode): TypeShape {
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

function hasDirective(node: { directives?: readonly ConstDirectiveNode[] }, name: string): boolean {
  return directive(node, name) !== undefined;
}

function directive(node: { directives?: readonly ConstDirectiveNode[] }, name: string): ConstDirectiveNode | undefined {
  return node.directives?.find((d) => d.name.value === name);
}

function argument(d: ConstDirectiveNode, name: string): ConstArgumentNode | undefined {
  return d.arguments?.find((a) => a.name.value === name);
}

function stringArg(d: ConstDirectiveNode, name: string): string | undefined {
  const v: ConstValueNode | undefined = argument(d, name)?.value;
  return v?.kind === Kind.STRING ? v.value : undefined;
}

function booleanArg(d: ConstDirectiveNode, name: string): boolean | undefined {
  const v = argument(d, name)?.value;
  return v?.kind === Kind.BOOLEAN ? v.value : undefined;
}

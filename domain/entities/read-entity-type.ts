import { Kind, type ConstDirectiveNode, type FieldDefinitionNode, type ObjectTypeDefinitionNode } from 'graphql';
import { CHAIN_COLUMN } from './chain-tables.ts';
import { FULL_TEXT_COLUMN, type EntityModel, type FieldModel, type FullTextModel, type IndexModel } from './entity-model.ts';
import { columnName, identifierBytes, MAX_IDENTIFIER_BYTES, tableName } from './names.ts';
import { resolveType, type DeclaredTypes, type Located, type SchemaProblems } from './schema-reader.ts';
import { argument, booleanArg, directive, stringArg, unwrap } from './schema-syntax.ts';

/**
 * Columns idx may add to an entity table besides its fields; a field may not map onto one of them.
 * `created_at`/`updated_at` are free: idx's own move aside (domain/entities/timestamp-columns.ts).
 */
const RESERVED_COLUMNS = new Set(['__block_range', '__created_at', '__updated_at', CHAIN_COLUMN, '_id', FULL_TEXT_COLUMN]);

const FIELD_DIRECTIVES = new Set(['index', 'derivedFrom']);

// PostgreSQL would cut a longer table, column or type name, and two such names could silently become one: refused instead.
export const tooLong = (what: string) =>
  `${what} is longer than PostgreSQL's ${MAX_IDENTIFIER_BYTES} bytes (PostgreSQL would cut it, and two such names could become one); shorten the name`;

/** What reading one @entity type needs: the schema's declared types, where problems go, and the tables already named. */
export interface EntityReader {
  types: DeclaredTypes;
  problems: SchemaProblems;
  /** table → entity, to refuse two entities stored in one table */
  tables: Map<string, string>;
}

/** One @entity type as its table: fields, columns, indexes, full-text search; problems reported, not thrown. */
export function readEntity(ctx: EntityReader, node: ObjectTypeDefinitionNode): EntityModel {
  const { report } = ctx.problems;
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
    if (!ctx.problems.protoName(fname, f, where)) continue;
    for (const d of f.directives ?? []) {
      if (!FIELD_DIRECTIVES.has(d.name.value)) report(d, `${where}: unknown directive @${d.name.value}; fields take @index or @derivedFrom`);
    }
    const field = readField(ctx, f, where);
    if (field === undefined) continue;
    if (field.column !== undefined) {
      const other = columns.get(field.column);
      if (identifierBytes(field.column) > MAX_IDENTIFIER_BYTES) report(f, tooLong(`${where}: its column name "${field.column}"`));
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
    if (d.name.value === 'compositeIndexes') indexes.push(...readCompositeIndexes(ctx, d, name, fields));
  }

  const table = tableName(name);
  if (identifierBytes(table) > MAX_IDENTIFIER_BYTES) report(node, tooLong(`${name}: its table name "${table}"`));
  else if (ctx.tables.has(table)) report(node, `entities ${ctx.tables.get(table)} and ${name} would both be stored in table "${table}"; rename one`);
  ctx.tables.set(table, name);
  const entity: EntityModel = { name, table, fields, indexes };
  const fullText = directive(node, 'fullText');
  if (fullText !== undefined) {
    const model = readFullText(ctx, fullText, name, fields);
    if (model !== undefined) entity.fullText = model;
  }
  if (node.description) entity.description = node.description.value;
  return entity;
}

function readField(ctx: EntityReader, f: FieldDefinitionNode, where: string): FieldModel | undefined {
  const { report } = ctx.problems;
  const shape = unwrap(f.type);
  const type = resolveType(ctx.types, ctx.problems, shape, where, f.type);
  if (type === undefined) return undefined;
  const field: FieldModel = { name: f.name.value, type, nullable: shape.nullable, list: shape.list, itemNullable: shape.itemNullable };

  const derived = directive(f, 'derivedFrom');
  const index = directive(f, 'index');
  if (derived) {
    const target = stringArg(derived, 'field');
    if (target === undefined) report(derived, `${where}: @derivedFrom needs a field, e.g. @derivedFrom(field: "owner")`);
    if (type.kind !== 'entity') report(f.type, `${where}: @derivedFrom needs an @entity type, not ${shape.named}`);
    if (index) report(index, `${where}: a @derivedFrom field has no column and cannot be indexed`);
    if (target !== undefined && type.kind === 'entity') checkDerivedTarget(ctx, derived, where, type.entity, target);
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

function checkDerivedTarget(ctx: EntityReader, node: Located, where: string, entity: string, target: string) {
  const { report } = ctx.problems;
  const def = ctx.types.entityNodes.find((n) => n.name.value === entity);
  const tf = def?.fields?.find((x) => x.name.value === target);
  const owner = where.slice(0, where.indexOf('.'));
  if (tf === undefined) {
    report(node, `${where}: @derivedFrom(field: "${target}") but ${entity} has no field "${target}"`);
  } else if (unwrap(tf.type).named !== owner || unwrap(tf.type).list || directive(tf, 'derivedFrom')) {
    report(node, `${where}: @derivedFrom(field: "${target}") needs ${entity}.${target} to be a relation to ${owner}`);
  }
}

function readCompositeIndexes(ctx: EntityReader, d: ConstDirectiveNode, entity: string, fields: FieldModel[]): IndexModel[] {
  const { report } = ctx.problems;
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

function readFullText(ctx: EntityReader, d: ConstDirectiveNode, entity: string, fields: FieldModel[]): FullTextModel | undefined {
  const { report } = ctx.problems;
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

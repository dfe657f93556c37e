import type { EntityModel, FieldModel, Scalar, SchemaModel } from '../../domain/entities/entity-model.ts';
import { propertyName } from '../../domain/entities/property-name.ts';
import { lookupMethodName, parameterName, RESERVED_WORDS } from './codegen-names.ts';
import { GENERATED_HEADER } from './codegen-runtime-types.ts';

/** TypeScript types of the schema scalars, as SubQuery's generated models use them. */
const SCALAR_TS: Record<Scalar, string> = {
  ID: 'string',
  String: 'string',
  Int: 'number',
  BigInt: 'bigint',
  Float: 'number',
  Boolean: 'boolean',
  Date: 'Date',
  Bytes: 'string',
  BigDecimal: 'number',
  JSON: 'any',
};

/** A model property: relation fields become `<field>Id` holding the other entity's id, as in SubQuery. */
interface Property {
  name: string;
  type: string;
  required: boolean;
}

/**
 * The files of `src/types` that come from schema.graphql, keyed by path relative to `src/types`:
 * `models/<Entity>.ts`, `models/index.ts`, and `enums.ts` / `interfaces.ts` when the schema has
 * enums / `@jsonField` types. `storeTypes`: the module the models import the store types from.
 */
export function renderModels(schema: SchemaModel, storeTypes: string): Map<string, string> {
  const files = new Map<string, string>();
  for (const entity of schema.entities) files.set(`models/${entity.name}.ts`, renderEntity(entity, storeTypes));
  files.set(
    'models/index.ts',
    `${GENERATED_HEADER}\n${schema.entities.map((e) => `export { ${e.name}, type ${e.name}Props } from "./${e.name}";\n`).join('')}` +
      (schema.entities.length === 0 ? 'export {};\n' : ''),
  );
  if (schema.enums.length > 0) {
    // a member that is a reserved word is written quoted (`"delete" = "delete"`), which TypeScript takes alike
    const member = (v: string) => (RESERVED_WORDS.has(v) ? JSON.stringify(v) : v);
    const enums = schema.enums.map((e) => `export enum ${e.name} {\n${e.values.map((v) => `  ${member(v)} = ${JSON.stringify(v)},\n`).join('')}}\n`);
    files.set('enums.ts', `${GENERATED_HEADER}\n\n${enums.join('\n')}`);
  }
  if (schema.jsonTypes.length > 0) {
    const usedEnums = enumsUsed(schema.jsonTypes.flatMap((t) => t.fields));
    const imports = usedEnums.length > 0 ? `import type { ${usedEnums.join(', ')} } from "./enums";\n` : '';
    const interfaces = schema.jsonTypes.map(
      (t) => `export interface ${t.name} {\n${t.fields.map((f) => `  ${f.name}${f.nullable ? '?' : ''}: ${tsType(f)};\n`).join('')}}\n`,
    );
    files.set('interfaces.ts', `${GENERATED_HEADER}\n${imports}\n${interfaces.join('\n')}`);
  }
  return files;
}

function renderEntity(entity: EntityModel, storeTypes: string): string {
  const name = entity.name;
  const props = properties(entity);
  const required = props.filter((p) => p.required);
  // the constructor's parameters are named as the properties, but a reserved word cannot name one
  const taken = new Set<string>();
  const params = new Map(required.map((p) => [p.name, parameterName(p.name, taken)]));
  const stored = entity.fields.filter((f) => f.derivedFrom === undefined);
  const enums = enumsUsed(stored);
  const jsonTypes = [...new Set(stored.flatMap((f) => (f.type.kind === 'json' ? [f.type.name] : [])))];

  const out: string[] = [GENERATED_HEADER];
  out.push(`import type * as rt from "${storeTypes}";`);
  if (enums.length > 0) out.push(`import type { ${enums.join(', ')} } from "../enums";`);
  if (jsonTypes.length > 0) out.push(`import type { ${jsonTypes.join(', ')} } from "../interfaces";`);
  out.push(
    '',
    '// The sandbox provides `store`; declared here so that models typecheck whatever globals the project declares.',
    'declare const store: rt.Store;',
    '',
    `export type ${name}Props = Omit<${name}, NonNullable<rt.FunctionPropertyNames<${name}>> | "_name">;`,
    '',
    `export class ${name} implements rt.Entity {`,
    `  constructor(${required.map((p) => `${params.get(p.name)}: ${p.type}`).join(', ')}) {`,
    ...required.map((p) => `    this.${p.name} = ${params.get(p.name)};`),
    '  }',
    '',
    ...props.map((p) => `  public ${p.name}${p.required ? '' : '?'}: ${p.type};`),
    '',
    '  get _name(): string {',
    `    return ${JSON.stringify(name)};`,
    '  }',
    '',
    '  async save(): Promise<void> {',
    '    const id = this.id;',
    `    if (id === null || id === undefined) throw new Error("Cannot save ${name} entity without an ID");`,
    `    await store.set(${JSON.stringify(name)}, id.toString(), this);`,
    '  }',
    '',
    '  static async remove(id: string): Promise<void> {',
    `    if (id === null || id === undefined) throw new Error("Cannot remove ${name} entity without an ID");`,
    `    await store.remove(${JSON.stringify(name)}, id.toString());`,
    '  }',
    '',
    `  static async get(id: string): Promise<${name} | undefined> {`,
    `    if (id === null || id === undefined) throw new Error("Cannot get ${name} entity without an ID");`,
    `    const record = await store.get(${JSON.stringify(name)}, id.toString());`,
    `    return record ? this.create(record as unknown as ${name}Props) : undefined;`,
    '  }',
  );
  for (const field of stored) {
    if (field.index === undefined) continue;
    const prop = propertyName(field);
    const method = lookupMethodName(prop);
    const type = tsType(field);
    const param = parameterName(prop, new Set(['options']));
    out.push('');
    if (field.index.unique) {
      out.push(
        `  static async ${method}(${param}: ${type}): Promise<${name} | undefined> {`,
        `    const record = await store.getOneByField(${JSON.stringify(name)}, ${JSON.stringify(prop)}, ${param});`,
        `    return record ? this.create(record as unknown as ${name}Props) : undefined;`,
        '  }',
      );
    } else {
      out.push(
        `  static async ${method}(${param}: ${type}, options?: rt.GetOptions<${name}Props>): Promise<${name}[]> {`,
        `    const records = await store.getByField(${JSON.stringify(name)}, ${JSON.stringify(prop)}, ${param}, options);`,
        `    return records.map((record) => this.create(record as unknown as ${name}Props));`,
        '  }',
      );
    }
  }
  out.push(
    '',
    '  /** Entities matching every filter; the node reads its cache of this block first, then the database. */',
    `  static async getByFields(filter: rt.FieldsExpression<${name}Props>[], options?: rt.GetOptions<${name}Props>): Promise<${name}[]> {`,
    `    const records = await store.getByFields<${name}Props>(${JSON.stringify(name)}, filter, options);`,
    `    return records.map((record) => this.create(record));`,
    '  }',
    '',
    `  static create(record: ${name}Props): ${name} {`,
    `    if (record.id === undefined || record.id === null) throw new Error("id must be provided");`,
    `    const entity = new this(${required.map((p) => `record.${p.name}`).join(', ')});`,
    '    Object.assign(entity, record);',
    '    return entity;',
    '  }',
    '}',
    '',
  );
  return out.join('\n');
}

function properties(entity: EntityModel): Property[] {
  const props = entity.fields
    .filter((f) => f.derivedFrom === undefined)
    .map((f) => ({ name: propertyName(f), type: tsType(f), required: !f.nullable || f.name === 'id' }));
  // SubQuery's models always start with id, whatever its place in the schema.
  return [...props.filter((p) => p.name === 'id'), ...props.filter((p) => p.name !== 'id')];
}

function tsType(field: FieldModel): string {
  const t = field.type;
  const base = t.kind === 'scalar' ? SCALAR_TS[t.scalar] : t.kind === 'entity' ? 'string' : t.name;
  return field.list ? `${base}[]` : base;
}

function enumsUsed(fields: FieldModel[]): string[] {
  return [...new Set(fields.flatMap((f) => (f.type.kind === 'enum' ? [f.type.name] : [])))];
}

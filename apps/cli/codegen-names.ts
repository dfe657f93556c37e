import type { Abi, AbiParameter } from 'viem';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { propertyName } from '../../domain/entities/property-name.ts';
import { ValidationError, type Problem } from '../../domain/errors.ts';

/**
 * The names `idx codegen` writes into TypeScript, and the rules they must pass (docs/usage.md,
 * "Names codegen refuses"). Every name from a user's file reaches generated code either as an
 * identifier checked here or as a quoted string (`JSON.stringify`), never raw: a name is refused
 * with the file and the place it was found rather than written into code it could break or extend.
 */

/** What Solidity, Vyper and TypeScript call an identifier (ASCII only). */
const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

export function isIdentifier(name: string): boolean {
  return IDENTIFIER.test(name);
}

/** An identifier that is not `__proto__`, which as a key sets an object's prototype instead of a value. */
function isAbiName(name: string): boolean {
  return isIdentifier(name) && name !== '__proto__';
}

const NOT_AN_IDENTIFIER = 'is not a valid identifier (letters, digits, _ and $, not starting with a digit; not __proto__)';

/** JavaScript's reserved words and strict mode's (generated code is strict): none may name a parameter or a declaration. */
export const RESERVED_WORDS: ReadonlySet<string> = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for function if import in ' +
    'instanceof new null return super switch this throw true try typeof var void while with yield let static implements interface package ' +
    'private protected public await arguments eval'
  ).split(' '),
);

/** The names TypeScript refuses for a class, interface or enum (`class string {}` is TS2414). */
const TYPE_KEYWORDS: ReadonlySet<string> = new Set(['any', 'unknown', 'never', 'number', 'bigint', 'boolean', 'string', 'symbol', 'object', 'undefined']);

/**
 * Names the generated files use unqualified, besides the project's own and the chain families'
 * (FamilyCodegen.globals): a model, enum, `@jsonField` type or ABI of one of these names would
 * shadow it there (an entity `Promise` turns every `Promise<void>` of its model into itself, and
 * the build fails).
 */
export const GENERATED_CODE_GLOBALS: ReadonlySet<string> = new Set([
  'Promise',
  'Array',
  'Record',
  'Omit',
  'NonNullable',
  'Error',
  'Object',
  'rt',
  'store',
  'createDynamicDatasource',
]);

/**
 * Property names an entity's data may not use: the generated class's own instance members
 * (`save`, `_name`), JavaScript's `constructor` and `then` (an object with `then` is taken for a
 * promise by `await`), and the members every object inherits (a field `toString` breaks string
 * conversion of the entity). `id` must be `ID!`, which the schema reader checks.
 */
export const RESERVED_PROPERTIES: ReadonlySet<string> = new Set([
  'save',
  '_name',
  'then',
  'constructor',
  'prototype',
  'toString',
  'toLocaleString',
  'valueOf',
  'hasOwnProperty',
  'isPrototypeOf',
  'propertyIsEnumerable',
  '__defineGetter__',
  '__defineSetter__',
  '__lookupGetter__',
  '__lookupSetter__',
  '__proto__',
]);

/** A name shown in a message: quoted and escaped (newlines as \n), and cut when long. */
export function shownName(name: string): string {
  const quoted = JSON.stringify(name);
  return quoted.length > 60 ? `${quoted.slice(0, 57)}…"` : quoted;
}

/**
 * A parameter name for `name` that is not a reserved word (`delete` → `delete_`) and not one of
 * `taken`, which it joins. The field keeps its name as a property: only the parameter changes.
 */
export function parameterName(name: string, taken: Set<string>): string {
  let out = name;
  while (RESERVED_WORDS.has(out) || taken.has(out)) out = `${out}_`;
  taken.add(out);
  return out;
}

/**
 * The schema's names as codegen uses them: type names (entities, enums, `@jsonField` types)
 * become classes, enums and interfaces, and the model files import them next to the names in
 * {@link GENERATED_CODE_GLOBALS}; field names become class properties. GraphQL names are
 * identifiers already, and `__proto__` is refused by the schema reader, for every program. `otherExports`: the other names
 * `src/types/index.ts` exports (the templates' `create<Name>Datasource`), with what gives them.
 * `globals`: every name the generated code uses unqualified, the families' included.
 */
export function schemaNameProblems(
  schema: SchemaModel,
  file: string,
  otherExports: readonly (readonly [string, string])[],
  globals: ReadonlySet<string>,
): Problem[] {
  const problems: Problem[] = [];
  const report = (message: string) => problems.push({ path: file, message });
  const exported = new Map<string, string>(); // name exported from src/types → what exports it
  const claim = (name: string, what: string) => {
    const other = exported.get(name);
    if (other !== undefined) report(`${what} and ${other} would both be exported from src/types as ${name}; rename one`);
    else exported.set(name, what);
  };
  const typeName = (name: string, what: string) => {
    if (RESERVED_WORDS.has(name) || TYPE_KEYWORDS.has(name))
      report(`${what}: ${name} is a reserved word in TypeScript and cannot name a generated type; rename it`);
    else if (globals.has(name)) report(`${what}: ${name} is a name the generated code uses (it would be shadowed); rename it`);
    claim(name, what);
  };
  for (const [name, what] of otherExports) claim(name, what);
  for (const e of schema.entities) {
    const methods = new Map<string, string>([['getByFields', 'the lookup by several fields']]);
    typeName(e.name, `entity ${e.name}`);
    // as SubQuery's codegen: the query service names an entity's filter type <Entity>Filter
    if (/filters?$/i.test(e.name))
      report(`entity ${e.name}: an entity name may not end with "Filter" or "Filters" (the GraphQL API names filter types <Entity>Filter); rename it`);
    claim(`${e.name}Props`, `the props type of entity ${e.name}`);
    for (const f of e.fields) {
      if (f.derivedFrom !== undefined) continue;
      const prop = propertyName(f);
      if (RESERVED_PROPERTIES.has(prop)) {
        report(`${e.name}.${f.name}: "${prop}" cannot be a property of the generated class ${e.name} (it is ${propertyRole(prop)}); rename the field`);
      }
      if (f.index === undefined) continue;
      const method = lookupMethodName(prop);
      const other = methods.get(method);
      if (other !== undefined) report(`${e.name}.${f.name}: its lookup ${e.name}.${method} would be ${other} too; rename the field`);
      else methods.set(method, `the lookup of ${e.name}.${f.name}`);
    }
  }
  for (const e of schema.enums) typeName(e.name, `enum ${e.name}`);
  for (const j of schema.jsonTypes) {
    typeName(j.name, `@jsonField type ${j.name}`);
    for (const f of j.fields) {
      if (RESERVED_PROPERTIES.has(f.name)) report(`${j.name}.${f.name}: "${f.name}" cannot be a property (it is ${propertyRole(f.name)}); rename the field`);
    }
  }
  return problems;
}

function propertyRole(name: string): string {
  if (name === 'save' || name === '_name') return 'a member of every generated entity class';
  if (name === 'then') return 'what await takes an object for a promise by';
  return 'a member every JavaScript object has';
}

/** The static method of an entity class that finds rows by an indexed property: `getByOwnerId`. */
export function lookupMethodName(prop: string): string {
  return `getBy${prop[0]!.toUpperCase()}${prop.slice(1)}`;
}

/** Every problem of {@link schemaNameProblems}, thrown. */
export function checkSchemaNames(schema: SchemaModel, file: string, otherExports: readonly (readonly [string, string])[], globals: ReadonlySet<string>): void {
  const problems = schemaNameProblems(schema, file, otherExports, globals);
  if (problems.length > 0) throw new ValidationError(file, problems);
}

/**
 * The names of an ABI that codegen writes into code: those of functions, events and errors, and
 * of their parameters and struct components, must be identifiers, as every Solidity or Vyper
 * compiler writes them (an empty parameter name is fine: it is positional only). `file` is how
 * the message names the ABI.
 */
export function checkAbiNames(abi: Abi, file: string): void {
  const problems: Problem[] = [];
  abi.forEach((item, i) => {
    const kind = item.type;
    const named = 'name' in item ? (item as { name?: unknown }).name : undefined;
    if (kind === 'function' || kind === 'event' || kind === 'error') {
      if (typeof named !== 'string' || !isAbiName(named)) {
        problems.push({ path: file, message: `${kind} name ${shownName(String(named))} (item ${i}) ${NOT_AN_IDENTIFIER}` });
        return;
      }
    }
    const where = typeof named === 'string' ? `${kind} ${named}` : `${kind} (item ${i})`;
    const params = (list: unknown, role: string) => {
      if (!Array.isArray(list)) return;
      (list as AbiParameter[]).forEach((p, j) => checkParam(p, `${where} ${role} ${j}`));
    };
    const checkParam = (p: AbiParameter, at: string) => {
      const name = (p as { name?: unknown }).name;
      if (name !== undefined && name !== null && name !== '' && (typeof name !== 'string' || !isAbiName(name))) {
        problems.push({ path: file, message: `${at}: parameter name ${shownName(String(name))} ${NOT_AN_IDENTIFIER}` });
      }
      const components = (p as { components?: unknown }).components;
      if (Array.isArray(components)) (components as AbiParameter[]).forEach((c, k) => checkParam(c, `${at} component ${k}`));
    };
    params((item as { inputs?: unknown }).inputs, 'input');
    params((item as { outputs?: unknown }).outputs, 'output');
  });
  if (problems.length > 0) throw new ValidationError(file, problems);
}

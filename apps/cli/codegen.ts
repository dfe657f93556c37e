import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import type { ChainFamilyName } from '../../domain/chains/chain-family.ts';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { IdxError } from '../../domain/errors.ts';
import type { Template } from '../../domain/project/project-model.ts';
import { loadProjects, type LoadedProject } from '../../infra/project/load-project.ts';
import { checkSchemaNames, GENERATED_CODE_GLOBALS } from './codegen-names.ts';
import { renderModels } from './codegen-models.ts';
import { GENERATED_HEADER, readMappingTypes, renderGlobals } from './codegen-runtime-types.ts';
import { TEST_FOLDERS } from './test-entries.ts';
import type { CliFamily, FamilyCodegen } from './families/cli-family.ts';
import { cliFamilies, STORE_TYPES_FAMILY } from './families/registry.ts';
import type { Reporter } from './reporter.ts';

export interface CodegenOptions {
  /** the project folder, or its manifest file */
  location: string;
  /** manifest file name inside the folder, instead of the usual names */
  manifestFile?: string;
  reporter: Reporter;
}

export interface CodegenResult {
  /** the folder written, `<project>/src/types` */
  typesDir: string;
  /** files written, relative to typesDir */
  files: string[];
}

/** Files and folders of src/types that codegen owns besides the families' parts; removed first so that nothing stale is left. */
const GENERATED_ENTRIES = ['models', 'index.ts', 'enums.ts', 'interfaces.ts', 'datasources.ts', 'global.d.ts', 'testing.ts'];

/**
 * `idx codegen`: writes `src/types/` from the project's schema.graphql, in the shape SubQuery
 * projects import (`../types`), with every chain family's part (families/registry.ts: the EVM
 * family's ABI types and runtime types `ethereum.ts`) and the globals (`global.d.ts`) that let the
 * project typecheck without @subql packages.
 */
export async function codegen(options: CodegenOptions): Promise<CodegenResult> {
  // Only what codegen reads must be valid; the rest (network, addresses, filters…) is for idx-node to refuse.
  const { multichain, projects } = await loadProjects(options.location, { manifestFile: options.manifestFile, warnNodeOnly: options.reporter.warn });
  const project = projects[0]!;
  const root = multichain?.root ?? project.root;
  const schemaPath = sharedSchema(projects);
  const schemaText = await readFile(schemaPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new IdxError('SCHEMA_NOT_FOUND', `cannot read the schema ${schemaPath} (schema.file in ${project.manifestPath}): ${err.code ?? err.message}`, {
      cause: err,
    });
  });
  const schemaFile = relative(process.cwd(), schemaPath) || schemaPath;
  const schema = parseSchema(schemaText, schemaFile);
  const families = await loadFamilyCodegen();
  const globals = new Set([...GENERATED_CODE_GLOBALS, ...[...families.values()].flatMap((f) => f.globals)]);
  const templates = new Map(projects.flatMap((p) => p.manifest.templates.map((tpl) => [tpl.name, tpl] as const)));
  checkSchemaNames(
    schema,
    schemaFile,
    [...templates.keys()].map((name) => [datasourceFunctionName(name), `the function of template ${JSON.stringify(name)}`] as const),
    globals,
  );

  const files = new Map<string, string>(renderModels(schema, families.get(STORE_TYPES_FAMILY)!.storeTypes!));
  const hasSubqlTypes = existsSync(join(root, 'node_modules', '@subql', 'types-core', 'package.json'));
  if (hasSubqlTypes) {
    options.reporter.info('@subql/types-core is installed: using its global declarations, so src/types/global.d.ts is not written');
  } else {
    files.set('global.d.ts', renderGlobals());
  }
  for (const family of families.values()) {
    for (const [path, text] of await family.render({ projects, multichain: multichain !== undefined, globals })) files.set(path, text);
  }
  if (templates.size > 0) files.set('datasources.ts', renderDatasources([...templates.values()]));
  // @subql/testing's types for the project's mapping tests, which tsconfig paths can point at (docs/testing.md)
  if (TEST_FOLDERS.some((f) => existsSync(join(root, 'src', f)))) files.set('testing.ts', `${GENERATED_HEADER}\n${readMappingTypes('testing.ts')}`);

  const exported = ['./models', ...['enums', 'interfaces', 'datasources'].filter((n) => files.has(`${n}.ts`)).map((n) => `./${n}`)];
  files.set('index.ts', `${GENERATED_HEADER}\n${exported.map((p) => `export * from "${p}";\n`).join('')}`);

  const typesDir = join(root, 'src', 'types');
  const owned = [...GENERATED_ENTRIES, ...[...families.values()].flatMap((f) => f.entries)];
  await Promise.all(owned.map((entry) => rm(join(typesDir, entry), { recursive: true, force: true })));
  for (const [path, text] of files) {
    const target = join(typesDir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  const written = [...files.keys()].sort();
  const what = [`${schema.entities.length} entit${schema.entities.length === 1 ? 'y' : 'ies'}`, ...[...families.values()].map((f) => f.summary(written))];
  options.reporter.info(`generated ${what.join(', ')} in ${relative(process.cwd(), typesDir) || typesDir}`);
  return { typesDir, files: written };
}

/** Every family's part of src/types, in the registry's order, each loaded now. */
async function loadFamilyCodegen(): Promise<Map<ChainFamilyName, FamilyCodegen>> {
  const entries = Object.entries(cliFamilies) as [ChainFamilyName, CliFamily][];
  const loaded = await Promise.all(entries.map(async ([name, family]) => [name, await family.codegen?.()] as const));
  return new Map(loaded.flatMap(([name, codegen]) => (codegen === undefined ? [] : [[name, codegen] as const])));
}

/** The schema file every project uses: a multichain project's chains share one (as in SubQuery). */
function sharedSchema(projects: readonly LoadedProject[]): string {
  const [first, ...rest] = projects.map((p) => ({ file: resolve(p.root, p.manifest.schema.file), manifest: p.manifestPath }));
  const other = rest.find((p) => p.file !== first!.file);
  if (other !== undefined) {
    throw new IdxError(
      'MULTICHAIN_SCHEMAS_DIFFER',
      `the chains of a multichain project share one schema, but ${first!.manifest} names ${first!.file} and ${other.manifest} names ${other.file}`,
    );
  }
  return first!.file;
}

/** `create<Template>Datasource(args)` per template, as SubQuery generates them. */
function renderDatasources(templates: readonly Template[]): string {
  const fns = templates.map(
    (t) =>
      `export function ${datasourceFunctionName(t.name)}(args: Record<string, unknown>): Promise<void> {\n` +
      `  return createDynamicDatasource(${JSON.stringify(t.name)}, args);\n}\n`,
  );
  return `${GENERATED_HEADER}\n\n// The sandbox provides createDynamicDatasource; declared here so this file needs no globals.\ndeclare function createDynamicDatasource(templateName: string, args: Record<string, unknown>): Promise<void>;\n\n${fns.join('\n')}`;
}

/** `create<Template>Datasource`, the template's name made an identifier (its other characters become `_`). */
function datasourceFunctionName(template: string): string {
  return `create${template.replace(/[^A-Za-z0-9_$]/g, '_')}Datasource`;
}

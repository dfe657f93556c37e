import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { IdxError, problemDetails, ValidationError } from '../../domain/errors.ts';
import { checkValueDepth, INPUT_LIMITS } from '../../domain/input-limits.ts';
import { parseJsonValue } from '../../infra/project/parse-data-file.ts';
import type { Template } from '../../domain/project/project-model.ts';
import { loadProjects, type LoadedProject } from '../../infra/project/load-project.ts';
import { abiInterfaceName, abiOf, renderAbiInterface } from './codegen-abi.ts';
import { checkAbiNames, checkSchemaNames, GENERATED_CODE_GLOBALS } from './codegen-names.ts';
import { renderContract, renderContractsIndex } from './codegen-contracts.ts';
import { renderModels } from './codegen-models.ts';
import { GENERATED_HEADER, renderEthereumTypes, renderGlobals } from './codegen-runtime-types.ts';
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

/** Files and folders of src/types that codegen owns; removed first so that nothing stale is left. */
const GENERATED_ENTRIES = ['models', 'abi-interfaces', 'contracts', 'index.ts', 'enums.ts', 'interfaces.ts', 'datasources.ts', 'ethereum.ts', 'global.d.ts'];

/**
 * `idx codegen`: writes `src/types/` from the project's schema.graphql and ABIs, in the shape
 * SubQuery projects import (`../types`, `../types/abi-interfaces/<Name>Abi`), plus the runtime
 * types (`ethereum.ts`, `global.d.ts`) that let the project typecheck without @subql packages.
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
  const templates = new Map(projects.flatMap((p) => p.manifest.templates.map((tpl) => [tpl.name, tpl] as const)));
  checkSchemaNames(
    schema,
    schemaFile,
    [...templates.keys()].map((name) => [datasourceFunctionName(name), `the function of template ${JSON.stringify(name)}`] as const),
  );

  const files = new Map<string, string>(renderModels(schema));
  files.set('ethereum.ts', renderEthereumTypes());
  const hasSubqlTypes = existsSync(join(root, 'node_modules', '@subql', 'types-core', 'package.json'));
  if (hasSubqlTypes) {
    options.reporter.info('@subql/types-core is installed: using its global declarations, so src/types/global.d.ts is not written');
  } else {
    files.set('global.d.ts', renderGlobals());
  }
  for (const [path, text] of await renderAbis(projects, multichain !== undefined)) files.set(path, text);
  if (templates.size > 0) files.set('datasources.ts', renderDatasources([...templates.values()]));

  const exported = ['./models', ...['enums', 'interfaces', 'datasources'].filter((n) => files.has(`${n}.ts`)).map((n) => `./${n}`)];
  files.set('index.ts', `${GENERATED_HEADER}\n${exported.map((p) => `export * from "${p}";\n`).join('')}`);

  const typesDir = join(root, 'src', 'types');
  await Promise.all(GENERATED_ENTRIES.map((entry) => rm(join(typesDir, entry), { recursive: true, force: true })));
  for (const [path, text] of files) {
    const target = join(typesDir, path);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text);
  }
  const written = [...files.keys()].sort();
  options.reporter.info(
    `generated ${schema.entities.length} entit${schema.entities.length === 1 ? 'y' : 'ies'}, ` +
      `${written.filter((f) => f.startsWith('abi-interfaces/')).length} ABI interface(s) and contract(s) in ${relative(process.cwd(), typesDir) || typesDir}`,
  );
  return { typesDir, files: written };
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

/**
 * Per distinct JSON ABI asset of the data sources and templates (of every chain, in a multichain
 * project): `abi-interfaces/<Name>.ts` (typed logs and transactions) and `contracts/` (typed
 * contract factories for calls through `api`). Two files giving one name must hold the same ABI.
 */
async function renderAbis(projects: readonly LoadedProject[], multichain: boolean): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const done = new Map<string, { name: string; abi: string }>(); // absolute file → interface name and its ABI as JSON
  const all = projects.flatMap((p) => {
    const at = multichain ? `${basename(p.manifestPath)}: ` : '';
    return [
      ...p.manifest.dataSources.map((ds, i) => ({ ds, path: `${at}dataSources[${i}]`, root: p.root })),
      ...p.manifest.templates.map((ds, i) => ({ ds, path: `${at}templates[${i}]`, root: p.root })),
    ];
  });
  for (const { ds, path, root } of all) {
    for (const [assetName, asset] of Object.entries(ds.assets)) {
      const file = resolve(root, asset.file);
      if (done.has(file) || !/\.json$/i.test(file)) continue;
      const isAbi = ds.options?.abi === assetName;
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new IdxError('ASSET_NOT_FOUND', `${path}.assets.${assetName}: cannot read ${file}: ${err.code ?? err.message}`, { cause: err });
      });
      let json: unknown;
      try {
        json = parseJsonValue(text, file, INPUT_LIMITS.maxAbiBytes);
      } catch (err) {
        if (!isAbi) continue;
        if (!(err instanceof ValidationError)) throw err;
        throw new IdxError('ABI_INVALID', `${path}.assets.${assetName}: ${file} cannot be read as JSON: ${problemDetails(err)}`, { cause: err });
      }
      const abi = abiOf(json);
      if (abi === undefined) {
        if (!isAbi) continue; // some other JSON asset
        throw new IdxError(
          'ABI_INVALID',
          `${path}.assets.${assetName}: ${file} is not an ABI (expected a JSON array of ABI items, or an object with an "abi" array)`,
        );
      }
      checkValueDepth(abi, relative(root, file) || file);
      checkAbiNames(abi, relative(root, file) || file);
      const name = abiInterfaceName(file);
      if (GENERATED_CODE_GLOBALS.has(name)) {
        throw new IdxError('ABI_NAME_CLASH', `${file} gives the ABI interface name ${name}, a name the generated code uses; rename the file`);
      }
      const clash = [...done.entries()].find(([, d]) => d.name === name);
      done.set(file, { name, abi: JSON.stringify(abi) });
      if (clash !== undefined) {
        // Chains often carry their own copy of one contract's ABI: the same ABI is one interface.
        if (clash[1].abi === JSON.stringify(abi)) continue;
        throw new IdxError(
          'ABI_NAME_CLASH',
          `${file} and ${clash[0]} both give the ABI interface name ${name} but hold different ABIs; rename one of the files`,
        );
      }
      files.set(`abi-interfaces/${name}.ts`, renderAbiInterface(abi, file));
      for (const [path, text] of renderContract(abi, name)) files.set(path, text);
    }
  }
  const names = [...new Set([...done.values()].map((d) => d.name))];
  if (names.length > 0) for (const [path, text] of renderContractsIndex(names)) files.set(path, text);
  return files;
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

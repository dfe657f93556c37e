import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { IdxError } from '../../domain/errors.ts';
import type { Template } from '../../domain/project/project-model.ts';
import { loadProject } from '../../infra/project/load-project.ts';
import { abiInterfaceName, abiOf, renderAbiInterface } from './codegen-abi.ts';
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
  const project = await loadProject(options.location, { manifestFile: options.manifestFile });
  const root = project.root;
  const schemaPath = resolve(root, project.manifest.schema.file);
  const schemaText = await readFile(schemaPath, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new IdxError('SCHEMA_NOT_FOUND', `cannot read the schema ${schemaPath} (schema.file in ${project.manifestPath}): ${err.code ?? err.message}`, {
      cause: err,
    });
  });
  const schema = parseSchema(schemaText, relative(process.cwd(), schemaPath) || schemaPath);

  const files = new Map<string, string>(renderModels(schema));
  files.set('ethereum.ts', renderEthereumTypes());
  const hasSubqlTypes = existsSync(join(root, 'node_modules', '@subql', 'types-core', 'package.json'));
  if (hasSubqlTypes) {
    options.reporter.info('@subql/types-core is installed: using its global declarations, so src/types/global.d.ts is not written');
  } else {
    files.set('global.d.ts', renderGlobals());
  }
  for (const [path, text] of await renderAbis(project.manifest.dataSources, project.manifest.templates, root)) files.set(path, text);
  if (project.manifest.templates.length > 0) files.set('datasources.ts', renderDatasources(project.manifest.templates));

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

/**
 * Per distinct JSON ABI asset of the data sources and templates: `abi-interfaces/<Name>.ts` (typed
 * logs and transactions) and `contracts/` (typed contract factories for calls through `api`).
 */
async function renderAbis(
  dataSources: readonly { options?: { abi?: string }; assets: Record<string, { file: string }> }[],
  templates: readonly Template[],
  root: string,
): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  const done = new Map<string, string>(); // absolute file → interface name
  const all = [...dataSources.map((ds, i) => ({ ds, path: `dataSources[${i}]` })), ...templates.map((ds, i) => ({ ds, path: `templates[${i}]` }))];
  for (const { ds, path } of all) {
    for (const [assetName, asset] of Object.entries(ds.assets)) {
      const file = resolve(root, asset.file);
      if (done.has(file) || !/\.json$/i.test(file)) continue;
      const isAbi = ds.options?.abi === assetName;
      const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
        throw new IdxError('ASSET_NOT_FOUND', `${path}.assets.${assetName}: cannot read ${file}: ${err.code ?? err.message}`, { cause: err });
      });
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch (err) {
        if (!isAbi) continue;
        throw new IdxError('ABI_INVALID', `${path}.assets.${assetName}: ${file} is not valid JSON: ${(err as Error).message}`, { cause: err });
      }
      const abi = abiOf(json);
      if (abi === undefined) {
        if (!isAbi) continue; // some other JSON asset
        throw new IdxError('ABI_INVALID', `${path}.assets.${assetName}: ${file} is not an ABI (expected a JSON array of ABI items, or an object with an "abi" array)`);
      }
      const name = abiInterfaceName(file);
      const clash = [...done.entries()].find(([, n]) => n === name);
      if (clash) throw new IdxError('ABI_NAME_CLASH', `${file} and ${clash[0]} both give the ABI interface name ${name}; rename one of the files`);
      done.set(file, name);
      files.set(`abi-interfaces/${name}.ts`, renderAbiInterface(abi, file));
      for (const [path, text] of renderContract(abi, name)) files.set(path, text);
    }
  }
  if (done.size > 0) for (const [path, text] of renderContractsIndex([...done.values()])) files.set(path, text);
  return files;
}

/** `create<Template>Datasource(args)` per template, as SubQuery generates them. */
function renderDatasources(templates: readonly Template[]): string {
  const fns = templates.map(
    (t) =>
      `export function create${t.name.replace(/[^A-Za-z0-9_$]/g, '_')}Datasource(args: Record<string, unknown>): Promise<void> {\n` +
      `  return createDynamicDatasource(${JSON.stringify(t.name)}, args);\n}\n`,
  );
  return `${GENERATED_HEADER}\n\n// The sandbox provides createDynamicDatasource; declared here so this file needs no globals.\ndeclare function createDynamicDatasource(templateName: string, args: Record<string, unknown>): Promise<void>;\n\n${fns.join('\n')}`;
}

import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { SchemaModel } from '../../domain/entities/entity-model.ts';
import { parseSchema } from '../../domain/entities/parse-schema.ts';
import { IdxError, problemDetails, ValidationError, type ErrorCode } from '../../domain/errors.ts';
import { checkValueDepth, INPUT_LIMITS } from '../../domain/input-limits.ts';
import type { JsonAbi } from '../../domain/mapping/json-abi.ts';
import { isCustomDataSource, type DataSource, type Template } from '../../domain/project/project-model.ts';
import type { LoadedProject } from './load-project.ts';
import { parseJsonValue } from './parse-data-file.ts';

/** What the node needs from a project's files besides the manifest. */
export interface ProjectFiles {
  model: SchemaModel;
  /** the built mapping bundle */
  code: string;
  codeFile: string;
  /** its source map (JSON text), when the build wrote one */
  sourceMap?: string;
  /** the ABI of a data source or template, by its `options.abi` asset */
  abiOf(ds: Pick<DataSource, 'options' | 'assets'>): JsonAbi | undefined;
}

/** Reads the schema, the mapping bundle and every ABI the data sources name; each problem names its file. */
export async function readProjectFiles(project: LoadedProject): Promise<ProjectFiles> {
  const { root, manifest } = project;
  const schemaFile = resolve(root, manifest.schema.file);
  const model = parseSchema(await readText(schemaFile, 'SCHEMA_NOT_FOUND', 'the schema named by schema.file'), schemaFile);

  const files = new Set([...manifest.dataSources, ...manifest.templates].map((ds) => ds.mapping.file));
  if (files.size > 1) {
    throw new IdxError('MAPPING_FILES_DIFFER', `every data source must use one mapping file; the manifest names ${[...files].join(', ')}`);
  }
  const codeFile = resolve(root, [...files][0] ?? 'dist/index.js');
  const code = await readText(codeFile, 'MAPPING_NOT_BUILT', 'the mapping bundle; run `idx codegen && idx build` in the project first');
  const sourceMap = await readFile(`${codeFile}.map`, 'utf8').catch(() => undefined);

  const abis = new Map<string, JsonAbi>();
  for (const ds of [...manifest.dataSources, ...manifest.templates] as (DataSource | Template)[]) {
    // a custom data source's assets are its processor's (an ink! contract's metadata, say), not ABIs
    if (isCustomDataSource(ds)) continue;
    for (const [name, asset] of Object.entries(ds.assets)) {
      const file = resolve(root, asset.file);
      if (abis.has(file)) continue;
      const text = await readText(file, 'ABI_NOT_FOUND', `the asset "${name}"`);
      let parsed: unknown;
      try {
        parsed = parseJsonValue(text, file, INPUT_LIMITS.maxAbiBytes);
      } catch (err) {
        if (!(err instanceof ValidationError)) throw err;
        throw new IdxError('ABI_INVALID', `${file} cannot be read as JSON: ${problemDetails(err)}`, { cause: err });
      }
      // Hardhat and Foundry artifacts wrap the ABI in an object.
      const abi = Array.isArray(parsed) ? parsed : (parsed as { abi?: unknown })?.abi;
      if (!Array.isArray(abi)) throw new IdxError('ABI_INVALID', `${file}: expected a JSON ABI (an array, or an object with an "abi" array)`);
      checkValueDepth(abi, file);
      abis.set(file, abi as JsonAbi);
    }
  }
  const out: ProjectFiles = {
    model,
    code,
    codeFile,
    abiOf(ds) {
      const name = ds.options?.abi;
      const asset = name === undefined ? undefined : ds.assets[name];
      return asset === undefined ? undefined : abis.get(resolve(root, asset.file));
    },
  };
  if (sourceMap !== undefined) out.sourceMap = sourceMap;
  return out;
}

async function readText(file: string, code: ErrorCode, what: string): Promise<string> {
  try {
    return await readFile(file, 'utf8');
  } catch {
    throw new IdxError(code, `${file} cannot be read: it should be ${what}`);
  }
}

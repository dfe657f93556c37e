import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import type { ProjectManifest } from '../../domain/project/project-model.ts';
import { requireNetworkForEndpointOverride, validateManifest, type LocateField } from '../../domain/project/validate-manifest.ts';
import { compileProjectTs } from './compile-project-ts.ts';
import { parseJsonText, parseYamlText } from './parse-data-file.ts';

export { compileProjectTs } from './compile-project-ts.ts';
export { manifestToYaml } from './manifest-to-yaml.ts';

export interface LoadedProject {
  /** the folder holding the manifest; manifest paths (schema, assets, mapping) are relative to it */
  root: string;
  manifestPath: string;
  manifest: ProjectManifest;
  /** the manifest as read (Maps made objects), with any keys idx does not model */
  raw: unknown;
}

export interface LoadProjectOptions {
  /** manifest file name inside the folder, instead of looking for the usual names */
  manifestFile?: string;
  /**
   * `--network-endpoint` values: the manifest must then have a network object with a chainId
   * (docs/usage.md "The project"), and these replace its endpoints.
   */
  networkEndpoints?: readonly string[];
  /** `process.env` for project.ts (default: a copy of this process's) */
  env?: Record<string, string | undefined>;
}

/** Looked for, in this order, when the location is a folder. */
export const MANIFEST_FILE_NAMES = ['project.ts', 'project.yaml', 'project.yml', 'project.json'] as const;

/** Finds, reads and validates a project's manifest. `location` is the project folder or the manifest file. */
export async function loadProject(location: string, opts: LoadProjectOptions = {}): Promise<LoadedProject> {
  const manifestPath = await findManifest(location, opts.manifestFile);
  const { raw, locate } = await readManifest(manifestPath, opts.env);
  const overriding = opts.networkEndpoints !== undefined && opts.networkEndpoints.length > 0;
  if (overriding) requireNetworkForEndpointOverride(raw, manifestPath, { locate });
  const manifest = validateManifest(raw, manifestPath, { locate });
  if (overriding && manifest.network) manifest.network.endpoints = opts.networkEndpoints!.map((url) => ({ url }));
  return { root: dirname(manifestPath), manifestPath, manifest, raw };
}

/** The manifest file for a project folder or file path; a clear error when there is none. */
export async function findManifest(location: string, manifestFile?: string): Promise<string> {
  const abs = resolve(location);
  const info = await stat(abs).catch(() => undefined);
  if (info === undefined) throw new IdxError('PROJECT_NOT_FOUND', `project location ${abs} does not exist`);
  if (info.isFile()) return abs;
  if (manifestFile !== undefined) {
    const file = resolve(abs, manifestFile);
    if (!(await stat(file).catch(() => undefined))?.isFile()) throw new IdxError('MANIFEST_NOT_FOUND', `manifest ${file} does not exist`);
    return file;
  }
  for (const name of MANIFEST_FILE_NAMES) {
    const file = resolve(abs, name);
    if ((await stat(file).catch(() => undefined))?.isFile()) return file;
  }
  throw new IdxError(
    'MANIFEST_NOT_FOUND',
    `no project manifest in ${abs}: looked for ${MANIFEST_FILE_NAMES.join(', ')}; give the manifest file itself, or run idx init to create a project`,
  );
}

async function readManifest(file: string, env: LoadProjectOptions['env']): Promise<{ raw: unknown; locate?: LocateField }> {
  const ext = extname(file).toLowerCase();
  if (ext === '.ts' || ext === '.mts' || ext === '.cts') return { raw: await compileProjectTs(file, { env }) };
  if (ext !== '.yaml' && ext !== '.yml' && ext !== '.json') {
    throw new IdxError('MANIFEST_UNSUPPORTED_FORMAT', `${file}: unsupported manifest format "${basename(file)}"; use a .ts, .yaml, .yml or .json file`);
  }
  const text = await readFile(file, 'utf8');
  const parsed = ext === '.json' ? parseJsonText(text, file) : parseYamlText(text, file);
  return { raw: parsed.value, locate: parsed.locate };
}

import { readFile, stat } from 'node:fs/promises';
import { basename, dirname, extname, resolve } from 'node:path';
import { formatProblem, IdxError, type Problem } from '../../domain/errors.ts';
import type { EndpointConfig, ProjectManifest } from '../../domain/project/project-model.ts';
import { familyOfKinds } from '../../domain/chains/chain-family.ts';
import { requireNetworkForEndpointOverride, validateManifest, type LocateField } from '../../domain/project/validate-manifest.ts';
import { isMultichainManifest, validateMultichainManifest, type MultichainManifest } from '../../domain/project/validate-multichain-manifest.ts';
import { compileProjectTs } from './compile-project-ts.ts';
import { MULTICHAIN_FILE_NAMES } from './multichain-location.ts';
import { parseJsonText, parseYamlText } from './parse-data-file.ts';

export { compileProjectTs } from './compile-project-ts.ts';
export { manifestToYaml } from './manifest-to-yaml.ts';
export { MULTICHAIN_FILE_NAMES, namesMultichain } from './multichain-location.ts';

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
   * `--network-endpoint` values (with their `--network-endpoint-config`): the manifest must then have a network object with a chainId
   * (docs/usage.md "The project"), and these replace its endpoints.
   */
  networkEndpoints?: readonly (string | EndpointConfig)[];
  /** `process.env` for project.ts (default: a copy of this process's) */
  env?: Record<string, string | undefined>;
  /**
   * codegen and build: problems in fields only idx-node reads (network, addresses, start blocks,
   * filters, runner) are told here, each naming the file and field, instead of failing.
   */
  warnNodeOnly?: (message: string) => void;
}

/** Looked for, in this order, when the location is a folder: as SubQuery, a multichain manifest first. */
export const MANIFEST_FILE_NAMES = [...MULTICHAIN_FILE_NAMES, 'project.ts', 'project.yaml', 'project.yml', 'project.json'] as const;

export interface LoadedMultichain {
  /** the folder holding the multichain manifest; `projects` are relative to it */
  root: string;
  manifestPath: string;
  manifest: MultichainManifest;
  /** each chain manifest's absolute path, in the listed order */
  projectPaths: string[];
  /** the manifest as read (with `query` and any other keys) */
  raw: unknown;
}

/** A location's projects: one, or those a multichain manifest lists. */
export interface LoadedProjects {
  multichain?: LoadedMultichain;
  projects: LoadedProject[];
}

/** Finds, reads and validates a project's manifest. `location` is the project folder or the manifest file. */
export async function loadProject(location: string, opts: LoadProjectOptions = {}): Promise<LoadedProject> {
  const manifestPath = await findManifest(location, opts.manifestFile);
  const read = await readManifest(manifestPath, opts.env);
  if (isMultichainManifest(read.raw)) {
    const multichain = await toMultichain(manifestPath, read);
    throw new IdxError(
      'MULTICHAIN_MANIFEST',
      `${manifestPath} is a multichain manifest (projects: ${multichain.manifest.projects.join(', ')}), not a project manifest; give one chain's manifest, e.g. ${multichain.projectPaths[0]}`,
    );
  }
  return toProject(manifestPath, read, opts);
}

/**
 * The multichain manifest at `location` (a folder holding one, or the file itself), or undefined
 * when the location is a single project. Its chain manifests are found but not read.
 */
export async function findMultichain(location: string, manifestFile?: string, env?: LoadProjectOptions['env']): Promise<LoadedMultichain | undefined> {
  const manifestPath = await findManifest(location, manifestFile);
  const read = await readManifest(manifestPath, env);
  return isMultichainManifest(read.raw) ? toMultichain(manifestPath, read) : undefined;
}

/** For codegen and build: the project at `location`, or every chain project of a multichain manifest. */
export async function loadProjects(location: string, opts: LoadProjectOptions = {}): Promise<LoadedProjects> {
  const manifestPath = await findManifest(location, opts.manifestFile);
  const read = await readManifest(manifestPath, opts.env);
  if (!isMultichainManifest(read.raw)) return { projects: [await toProject(manifestPath, read, opts)] };
  const multichain = await toMultichain(manifestPath, read);
  const projects: LoadedProject[] = [];
  for (const path of multichain.projectPaths) {
    const chain = await readManifest(path, opts.env);
    if (isMultichainManifest(chain.raw))
      throw new IdxError('MULTICHAIN_NESTED', `${path}, listed in ${manifestPath}, is itself a multichain manifest; list chain project manifests only`);
    projects.push(await toProject(path, chain, opts));
  }
  return { multichain, projects };
}

async function toMultichain(manifestPath: string, read: { raw: unknown; locate?: LocateField }): Promise<LoadedMultichain> {
  const manifest = validateMultichainManifest(read.raw, manifestPath, { locate: read.locate });
  const root = dirname(manifestPath);
  const projectPaths: string[] = [];
  for (const [i, p] of manifest.projects.entries()) {
    const file = resolve(root, p);
    if (!(await stat(file).catch(() => undefined))?.isFile()) {
      throw new IdxError('MANIFEST_NOT_FOUND', `${manifestPath}: projects[${i}] names ${file}, which does not exist`);
    }
    projectPaths.push(file);
  }
  return { root, manifestPath, manifest, projectPaths, raw: read.raw };
}

function toProject(manifestPath: string, { raw, locate }: { raw: unknown; locate?: LocateField }, opts: LoadProjectOptions): LoadedProject {
  const overriding = opts.networkEndpoints !== undefined && opts.networkEndpoints.length > 0;
  if (overriding) requireNetworkForEndpointOverride(raw, manifestPath, { locate });
  // one family per project (a mixed manifest is refused before its fields are read)
  familyOfKinds(dataSourceKinds(raw), manifestPath);
  const warn = opts.warnNodeOnly;
  const manifest = validateManifest(raw, manifestPath, {
    locate,
    ...(warn !== undefined && {
      onNodeOnlyProblem: (p: Problem) => warn(`${manifestPath}: ${formatProblem(p)} (not needed here, but idx-node will refuse it)`),
    }),
  });
  if (overriding && manifest.network) manifest.network.endpoints = opts.networkEndpoints!.map((e) => (typeof e === 'string' ? { url: e } : { ...e }));
  return { root: dirname(manifestPath), manifestPath, manifest, raw };
}

/** The `kind` of each data source and template of a manifest not validated yet. */
function dataSourceKinds(raw: unknown): string[] {
  const rec = (raw ?? {}) as { dataSources?: unknown; templates?: unknown };
  const list = [rec.dataSources, rec.templates].flatMap((l) => (Array.isArray(l) ? l : []));
  return list.flatMap((ds) => (typeof (ds as { kind?: unknown })?.kind === 'string' ? [(ds as { kind: string }).kind] : []));
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
    `no project manifest in ${abs}: looked for ${MANIFEST_FILE_NAMES.filter((n) => n.startsWith('project.')).join(', ')} and subquery-multichain.(ts|yaml|yml|json); give the manifest file itself, or run idx init to create a project`,
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

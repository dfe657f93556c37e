import { existsSync, statSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, isAbsolute, join, normalize, relative, resolve } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { loadProjects, manifestToYaml } from '../../infra/project/load-project.ts';
import { toPlainData } from '../../infra/project/to-plain-data.ts';
import { BUILD_MODES, type BuildMode } from './build-mode.ts';
import { bundleEntry } from './bundle-entry.ts';
import { unexportedHandlers, type BundleExports } from './unexported-handlers.ts';
import type { Reporter } from './reporter.ts';
import { testEntries } from './test-entries.ts';

export interface BuildProjectOptions {
  /** the project folder (default: the current folder), or a manifest file in it */
  location?: string;
  /** the output folder (default: `<location>/dist`) */
  output?: string;
  mode?: BuildMode;
  reporter: Reporter;
}

export interface BuiltEntry {
  /** `index`, or the key of the package.json `exports` entry */
  name: string;
  source: string;
  file: string;
}

export interface BuildProjectResult {
  outputDir: string;
  entries: BuiltEntry[];
  /** `<output>/project.yaml`, when the project has a project.ts (`<output>/subquery-multichain.yaml` for a subquery-multichain.ts) */
  manifest?: string;
}

/**
 * `idx build`: bundles `src/index.ts` into `<output>/index.js`, each string entry of
 * package.json `exports` into `<output>/<key>.js` (docs/usage.md, idx build) and each mapping test
 * `src/test/**\/*.test.ts` into `<output>/test/<name>.test.js` (docs/testing.md); a project.ts
 * manifest is also written out as `<output>/project.yaml`.
 */
export async function buildProject(options: BuildProjectOptions): Promise<BuildProjectResult> {
  const location = resolve(options.location ?? '.');
  // A manifest file given as the location (e.g. subquery-multichain.yaml) stands for its folder.
  const given = existsSync(location) && statSync(location).isFile() ? basename(location) : undefined;
  const root = given === undefined ? location : dirname(location);
  const mode = options.mode ?? 'production';
  if (!BUILD_MODES.includes(mode)) {
    throw new IdxError('BUILD_BAD_MODE', `unknown build mode "${String(mode)}": use ${BUILD_MODES.join(' or ')}`);
  }
  if (!existsSync(root) || !statSync(root).isDirectory()) {
    throw new IdxError('PROJECT_NOT_FOUND', `project folder ${root} does not exist`);
  }
  const outputDir = resolve(root, options.output ?? 'dist');
  const index = join(root, 'src', 'index.ts');
  if (!existsSync(index)) {
    throw new IdxError(
      'BUILD_ENTRY_NOT_FOUND',
      `${index} does not exist: idx build always bundles src/index.ts, which exports the handlers the manifest names ` + '(is --location the project folder?)',
    );
  }

  // The manifest first: a build without one, or with one that cannot be read, fails before bundling.
  // Only what the build reads must be valid; the rest (network, addresses, filters…) is for idx-node to refuse.
  const warnNodeOnly = options.reporter.warn;
  const { multichain, projects } = await loadProjects(root, { ...(given !== undefined && { manifestFile: given }), warnNodeOnly });

  const entries: BuiltEntry[] = [{ name: 'index', source: index, file: join(outputDir, 'index.js') }];
  for (const entry of await exportEntries(root, options.reporter)) entries.push({ ...entry, file: join(outputDir, `${entry.name}.js`) });
  // mapping tests (@subql/testing), for idx-node test; an exports entry of the same name wins, as in SubQuery's build
  for (const entry of await testEntries(root))
    if (!entries.some((e) => e.name === entry.name)) entries.push({ ...entry, file: join(outputDir, `${entry.name}.js`) });

  await mkdir(outputDir, { recursive: true });
  // one rollup run per entry: each output must stand alone, so no chunks are shared between them
  const bundles: BundleExports[] = [];
  for (const entry of entries) {
    const { exports } = await bundleEntry({ root, input: entry.source, output: entry.file, mode, reporter: options.reporter });
    bundles.push({ name: entry.name, file: entry.file, exports });
    options.reporter.info(`built ${relative(root, entry.source)} → ${relative(process.cwd(), entry.file) || entry.file}`);
  }
  const unexported = unexportedHandlers(projects, bundles);
  if (unexported.length > 0)
    options.reporter.warn(
      `the manifest names handlers the built code does not export (idx-node stops at the first block that calls one, as SubQuery's node does):\n` +
        `${unexported.map((p) => `  - ${p}`).join('\n')}\nExport each handler from src/index.ts (export * from "./mappings/…"), or fix its name in the manifest.`,
    );

  let manifest: string | undefined;
  // Each .ts manifest is written out as YAML; a .ts multichain manifest then lists those.
  for (const project of projects.filter((p) => isTs(p.manifestPath)))
    manifest = await writeManifestYaml(outputDir, relative(root, project.manifestPath), project.raw, options.reporter);
  if (multichain !== undefined) {
    manifest = undefined;
    if (isTs(multichain.manifestPath)) {
      const raw = { ...(toPlainData(multichain.raw) as object), projects: multichain.manifest.projects.map((p) => (isTs(p) ? yamlName(p) : p)) };
      manifest = await writeManifestYaml(outputDir, relative(root, multichain.manifestPath), raw, options.reporter);
    }
  }
  return { outputDir, entries, manifest };
}

const isTs = (file: string) => /\.[mc]?ts$/.test(file);
const yamlName = (file: string) => file.replace(/\.[mc]?ts$/, '.yaml');

/** `<output>/<name>.yaml` from a .ts manifest; paths inside stay relative to the project folder, as in the YAML SubQuery generates. */
async function writeManifestYaml(outputDir: string, source: string, raw: unknown, reporter: Reporter): Promise<string> {
  const file = join(outputDir, yamlName(source));
  await mkdir(dirname(file), { recursive: true });
  await writeFile(file, `# Generated by idx build from ${source}; edit ${source} instead.\n${manifestToYaml(raw)}`);
  reporter.info(`wrote ${relative(process.cwd(), file) || file} from ${source}`);
  return file;
}

/** The string entries of package.json `exports`; other entries are ignored with a warning. */
async function exportEntries(root: string, reporter: Reporter): Promise<{ name: string; source: string }[]> {
  const pkgPath = join(root, 'package.json');
  if (!existsSync(pkgPath)) return [];
  let pkg: { exports?: unknown };
  try {
    pkg = JSON.parse(await readFile(pkgPath, 'utf8')) as { exports?: unknown };
  } catch (err) {
    throw new IdxError('PACKAGE_JSON_INVALID', `${pkgPath} is not valid JSON: ${(err as Error).message}`, { cause: err });
  }
  const exports = pkg?.exports;
  if (exports === undefined || exports === null) return [];
  if (typeof exports !== 'object' || Array.isArray(exports)) {
    reporter.warn(`package.json "exports" is not an object of { name: file } and is ignored`);
    return [];
  }
  const result: { name: string; source: string }[] = [];
  for (const [key, value] of Object.entries(exports)) {
    if (typeof value !== 'string') {
      reporter.warn(`package.json exports."${key}" is not a string (a file path) and is ignored`);
      continue;
    }
    const name = normalize(key.replace(/^\.\//, '')).replace(/\.[mc]?[jt]s$/, '');
    if (name === '.' || name === 'index' || name.startsWith('..') || isAbsolute(name)) {
      reporter.warn(`package.json exports."${key}": "${name}" cannot be an output name (it must be a relative name other than index) and is ignored`);
      continue;
    }
    const source = resolve(root, value);
    if (!existsSync(source) || !statSync(source).isFile()) {
      throw new IdxError('BUILD_ENTRY_NOT_FOUND', `package.json exports."${key}": ${source} does not exist`);
    }
    result.push({ name, source });
  }
  return result;
}

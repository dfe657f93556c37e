import { existsSync, lstatSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { cp, readdir, readFile, writeFile } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { findPackage } from '../../infra/package/find-package.ts';
import { cliFamilies, cliFamily, DEFAULT_CLI_FAMILY } from './families/registry.ts';
import type { Starter } from './families/cli-family.ts';
import type { Reporter } from './reporter.ts';

export interface InitProjectOptions {
  /** the project's name, and the name of its new folder in `cwd` (not a path) */
  name: string;
  /** where a relative name is created (default: the current folder) */
  cwd?: string;
  /** the template folder (default: idx's starter for `network`) */
  template?: string;
  /** the chain family of the starter (families/registry.ts; default: the ERC20 starter's, examples/erc20) */
  network?: string;
  reporter: Reporter;
}

/** Files of the template that carry its name. */
const NAMED_FILES = ['package.json', 'project.ts', 'project.yaml', 'README.md'];

/** What a project folder may hold that is not part of the template: build output and local state. */
const SKIPPED = new Set(['node_modules', 'dist', '.idx-data', '.git', join('src', 'types')]);

/**
 * Written by init rather than copied: npm leaves `.gitignore` files out of published packages,
 * so the installed template has none. examples/erc20/.gitignore holds the same text.
 */
export const STARTER_GITIGNORE = `# made by idx codegen and idx build
src/types/
dist/
# the embedded database's data
.idx-data/
node_modules/
*.log
`;

/**
 * The longest project name: the folder's name is the node's default database schema name, which
 * PostgreSQL cuts at 63 bytes.
 */
const MAX_NAME_BYTES = 63;

/** npm refuses these as package names (the lower-cased project name is the package's). */
const NPM_REFUSED = new Set(['node_modules', 'favicon.ico', ...builtinModules.map((m) => m.replace(/^node:/, ''))]);

/**
 * A project name is a plain folder name, created in the current folder: never a path (`../x`,
 * `/tmp/x`, `a/b` would put files elsewhere), short enough to be a database schema name, and a
 * valid npm package name once lower-cased.
 */
function checkProjectName(name: string): void {
  const shown = JSON.stringify(name.length > 70 ? `${name.slice(0, 67)}…` : name);
  if (/[\\/]/.test(name) || name === '.' || name === '..') {
    throw new IdxError(
      'INIT_BAD_NAME',
      `${shown} is a path: idx init takes a project name and creates a folder of that name in the current folder; cd to where the project should go and give only its name`,
    );
  }
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(name)) {
    throw new IdxError('INIT_BAD_NAME', `${shown} cannot name a project: use letters, digits, ".", "_" and "-", starting with a letter or digit`);
  }
  if (name.length > MAX_NAME_BYTES) {
    throw new IdxError(
      'INIT_BAD_NAME',
      `${shown} is ${name.length} characters long; a project name has at most ${MAX_NAME_BYTES} (it is the default database schema name, and PostgreSQL cuts names at ${MAX_NAME_BYTES} bytes)`,
    );
  }
  if (NPM_REFUSED.has(name.toLowerCase())) {
    throw new IdxError('INIT_BAD_NAME', `${shown} cannot name a project: npm refuses "${name.toLowerCase()}" as a package name; choose another`);
  }
}

/** `idx init <name> [--network substrate]`: a starter project, copied from examples/, in a new or empty folder. */
export async function initProject(options: InitProjectOptions): Promise<{ dir: string; name: string }> {
  const network = options.network ?? DEFAULT_CLI_FAMILY;
  const starter = cliFamily(network)?.starter;
  if (starter === undefined) {
    throw new IdxError('INIT_BAD_NETWORK', `--network ${network}: idx init has starters for ${Object.keys(cliFamilies).join(' and ')}`);
  }
  const name = options.name;
  checkProjectName(name);
  const dir = resolve(options.cwd ?? '.', name);
  const entry = lstatSync(dir, { throwIfNoEntry: false });
  if (entry !== undefined) {
    // a link could lead the copy anywhere
    if (entry.isSymbolicLink()) throw new IdxError('INIT_TARGET_EXISTS', `${dir} is a symbolic link; idx init creates a real folder: choose another name`);
    if (!entry.isDirectory()) throw new IdxError('INIT_TARGET_EXISTS', `${dir} exists and is not a folder; choose another name`);
    if ((await readdir(dir)).length > 0) {
      throw new IdxError('INIT_TARGET_EXISTS', `${dir} exists and is not empty; idx init does not overwrite files: choose another name or empty the folder`);
    }
  }
  const template = options.template ?? join(findPackage().root, 'examples', starter.folder);
  if (!existsSync(join(template, 'schema.graphql'))) {
    throw new IdxError('INIT_TEMPLATE_MISSING', `the starter template ${template} is missing; reinstall idx`);
  }

  await cp(template, dir, {
    recursive: true,
    filter: (src) => {
      const rel = relative(template, src);
      return !SKIPPED.has(rel) && !rel.split(sep).includes('node_modules');
    },
  });
  await writeFile(join(dir, '.gitignore'), STARTER_GITIGNORE);
  for (const file of NAMED_FILES) {
    const path = join(dir, file);
    if (!existsSync(path)) continue;
    const text = await readFile(path, 'utf8');
    // package names must be lower case; the manifest and README keep the name as given
    const replacement = file === 'package.json' ? name.toLowerCase() : name;
    await writeFile(path, text.replaceAll(starter.name, replacement));
  }
  options.reporter.info(`created ${name} in ${dir}\nnext:\n${nextSteps(starter, relative(options.cwd ?? process.cwd(), dir) || '.')}`);
  return { dir, name };
}

/** The starter README's first lines: from the new folder to indexed rows, on a local chain. */
function nextSteps(starter: Starter, folder: string): string {
  return [
    `cd ${folder}`,
    ...starter.setup,
    'idx dev-chain --detach   # a local chain with what the starter indexes (idx dev-chain --stop stops it)',
    'idx codegen',
    'idx build',
    'idx-node -f .',
  ]
    .map((line) => `  ${line}`)
    .join('\n');
}

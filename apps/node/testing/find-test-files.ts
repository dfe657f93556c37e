import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join, relative } from 'node:path';

/**
 * The built test files of a project, as SubQuery's testing service finds them: every `*.test.js`
 * under `dist/`, here in a stable order. `--test-filter` keeps those whose path under dist/ (or
 * name) contains it.
 */
export async function findTestFiles(root: string, filter?: string): Promise<string[]> {
  const dist = join(root, 'dist');
  if (!existsSync(dist)) return [];
  const files = (await readdir(dist, { recursive: true, withFileTypes: true }))
    .filter((e) => e.isFile() && e.name.endsWith('.test.js'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
  if (filter === undefined || filter === '') return files;
  return files.filter((f) => relative(dist, f).includes(filter) || basename(f).includes(filter));
}

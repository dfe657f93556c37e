import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';

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

/**
 * A built test file as its source is named: the folder `idx build` took it from (`dist/test/x.test.js`
 * → `test`) and its name (`x`), where the files kept beside the test's source (its recording, its
 * snapshots) are named after it.
 */
export function builtTestSource(root: string, builtTestFile: string): { folder: string; name: string } {
  return {
    folder: relative(join(root, 'dist'), dirname(builtTestFile)),
    name: basename(builtTestFile).replace(/(\.test)?\.[mc]?js$/, ''),
  };
}

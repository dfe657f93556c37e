import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { basename, join } from 'node:path';

/** Where SubQuery's build finds mapping tests: `src/<folder>/**\/*.test.ts`. */
export const TEST_FOLDERS = ['test', 'tests'] as const;

/**
 * The project's mapping tests as build entries, as SubQuery's build picks them: every
 * `src/test/**\/*.test.ts` becomes `test/<name>.test` (so `dist/test/<name>.test.js`), every
 * `src/tests/**\/*.test.ts` `tests/<name>.test`; a file deeper in the folder keeps only its name.
 */
export async function testEntries(root: string): Promise<{ name: string; source: string }[]> {
  const out: { name: string; source: string }[] = [];
  for (const folder of TEST_FOLDERS) {
    const dir = join(root, 'src', folder);
    if (!existsSync(dir)) continue;
    const files = (await readdir(dir, { recursive: true, withFileTypes: true }))
      .filter((e) => e.isFile() && e.name.endsWith('.test.ts'))
      .map((e) => join(e.parentPath, e.name))
      .sort();
    for (const source of files) out.push({ name: `${folder}/${basename(source).replace(/\.ts$/, '')}`, source });
  }
  return out;
}

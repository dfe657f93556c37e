// The source files the house rules read (scripts/long-functions.mjs, scripts/family-names.mjs): the
// TypeScript of apps/, domain/ and infra/, without tests, declarations, or what a build or a user leaves there.
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
export const FOLDERS = ['apps', 'domain', 'infra'];
// what a build or a user leaves there is not ours (the playground is a bundled third-party page)
const SKIP_DIRS = new Set(['node_modules', 'dist', 'fixtures', 'playground']);

/** Every source file under `dir`, folders named in `skip` left out too. */
export function* sourceFiles(dir, skip = []) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !skip.includes(entry.name)) yield* sourceFiles(full, skip);
    } else if (/\.(ts|mts|cts)$/.test(entry.name) && !/\.test\.[cm]?ts$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      yield full;
    }
  }
}

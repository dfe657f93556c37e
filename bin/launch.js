// Loads an idx program. In a checkout of the repository the TypeScript sources are the truth and
// run through tsx, so a stale dist/ is never used by mistake; an installed package has no sources
// (package.json "files" ships dist/) and runs what `npm run build` (prepare) compiled.
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** `program`: the module path without extension, e.g. `apps/node/main`. */
export async function load(program) {
  const source = new URL(`../${program}.ts`, import.meta.url);
  const compiled = new URL(`../dist/${program}.js`, import.meta.url);
  if (existsSync(fileURLToPath(source))) {
    const { register } = await import('tsx/esm/api');
    register();
    return import(source.href);
  }
  if (existsSync(fileURLToPath(compiled))) return import(compiled.href);
  process.stderr.write('error: idx is not built: run `npm run build` in its package folder\n');
  process.exit(1);
}

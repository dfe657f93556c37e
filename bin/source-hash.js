// What dist/ was compiled from, and whether it is what the sources say now. `npm run build`
// (scripts/compile.ts) stamps dist/ with the hash of the sources it compiled; a checkout's programs
// (bin/launch.js) run dist/ only while that stamp is the hash of the sources now, so a stale dist/ is
// never run, and a current one spares each start tsx's compile of the sources (~0.5 to 1.5 s).
// Plain JavaScript, for the launcher; the build runs it as a script rather than importing it: tap
// reports coverage of any plain JavaScript its before step loads, and the suite measures none.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** A hash of everything tsconfig.build.json compiles (tests and fixtures left out), of its settings and of how dist/ is built. */
export function sourceHash(root) {
  const files = ['tsconfig.json', 'tsconfig.build.json', 'scripts/compile.ts', 'scripts/bundle-programs.ts', 'scripts/bundle-rules.ts', 'bin/source-hash.js'];
  const walk = (dir) => {
    for (const entry of readdirSync(join(root, dir), { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'fixtures' && entry.name !== 'node_modules') walk(path);
      } else if (!entry.name.endsWith('.test.ts')) files.push(path);
    }
  };
  for (const dir of ['domain', 'infra', 'apps', 'devchain']) walk(dir);
  const hash = createHash('sha256');
  for (const file of files.sort())
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

/** Where `npm run build` writes the stamp. */
export function stampFile(root) {
  return join(root, 'dist', '.source-hash');
}

/** The hash dist/ was compiled from, if it was stamped. */
export function compiledHash(root) {
  try {
    return readFileSync(stampFile(root), 'utf8').trim();
  } catch {
    return undefined;
  }
}

// As a script (scripts/compile.ts runs it, so the hash has one implementation): prints the hash of the checkout at `root`.
if (process.argv[1] === fileURLToPath(import.meta.url))
  process.stdout.write(`${sourceHash(process.argv[2] ?? join(fileURLToPath(import.meta.url), '..', '..'))}\n`);

// `npm run build`: compiles the programs (domain, infra, apps) into dist/ with tsc, bundles each
// program from there into dist/bundle/ (bundle-programs.ts), bundles the sandbox's runtime and
// libraries into dist/infra/sandbox/bundles/ (infra/sandbox/bundle-prelude.ts), and stamps
// dist/ with a hash of the sources it was compiled from. `compileIfStale` compiles only when that
// stamp differs from the sources now: the test suite's before step and the benchmarks call it, so
// that they run the compiled programs, as users do, never a dist/ older than the sources.
import { spawnSync } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stampFile = join(root, 'dist', '.source-hash');

/** A hash of everything tsconfig.build.json compiles (tests and fixtures left out), of its settings and of how dist/ is built (bin/source-hash.js). */
export function sourceHash(): string {
  const run = spawnSync(process.execPath, [join(root, 'bin', 'source-hash.js'), root], { encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`bin/source-hash.js failed: ${run.stderr}`);
  return run.stdout.trim();
}

/** The hash dist/ was compiled from, if it was stamped. */
export function compiledHash(): string | undefined {
  try {
    return readFileSync(stampFile, 'utf8').trim();
  } catch {
    return undefined;
  }
}

/**
 * tsc -p tsconfig.build.json, then the stamp; false when tsc fails (it printed why). `typeChecked`: the
 * sources were just checked (`npm run typecheck` checks them first), so tsc only emits (`--noCheck`, the
 * same JavaScript in half the CPU).
 */
export function compile(typeChecked = false, hash = sourceHash()): boolean {
  // `hash` is taken before compiling: a source edited meanwhile leaves the stamp stale, never wrong.
  // From empty: a moved or deleted source leaves no stale module behind in dist/.
  rmSync(join(root, 'dist'), { recursive: true, force: true });
  const args = ['-p', join(root, 'tsconfig.build.json'), ...(typeChecked ? ['--noCheck'] : [])];
  const tsc = spawnSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), ...args], { stdio: 'inherit' });
  if (tsc.status !== 0) return false;
  // then each program bundled from what tsc wrote (bundle-programs.ts)
  const bundle = spawnSync(process.execPath, ['--import', 'tsx', join(root, 'scripts', 'bundle-programs.ts')], { stdio: 'inherit', cwd: root });
  if (bundle.status !== 0) return false;
  // and the sandbox's runtime and libraries, which a compiled program then loads from dist/ rather
  // than bundling them on its first run (infra/sandbox/create-prelude-cache.ts)
  const sandbox = join(root, 'dist', 'infra', 'sandbox');
  const sandboxBundles = spawnSync(process.execPath, [join(sandbox, 'bundle-prelude.js'), '--all', join(sandbox, 'bundles')], { stdio: 'inherit', cwd: root });
  if (sandboxBundles.status !== 0) return false;
  writeFileSync(stampFile, `${hash}\n`);
  return true;
}

/** {@link compile} only when dist/ was not compiled from the sources as they are now (its stamp says). */
export function compileIfStale(typeChecked = false): boolean {
  // hashed once: each hash reads every source in a process of its own (bin/source-hash.js)
  const hash = sourceHash();
  if (compiledHash() === hash) return true;
  process.stderr.write('dist/ is missing or older than the sources: compiling it (tsc -p tsconfig.build.json)\n');
  return compile(typeChecked, hash);
}

// `--if-stale`: only when dist/ is not what the sources say (bin/warm-caches.js, at a checkout's `npm ci`; the
// typecheck, after which dist/ is usually the one `npm ci` just compiled from the same sources)
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const typeChecked = process.argv.includes('--type-checked');
  const done = process.argv.includes('--if-stale') ? compileIfStale(typeChecked) : compile(typeChecked);
  process.exit(done ? 0 : 1);
}

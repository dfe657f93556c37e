// Loads an idx program. In a checkout of the repository the TypeScript sources are the truth: it
// runs dist/ while dist/ is what they say (its stamp is the hash of the sources now, bin/source-hash.js:
// ~30 ms to check, against ~0.5 to 1.5 s for tsx to compile the sources at each start), and the
// sources through tsx otherwise, so a stale dist/ is never used by mistake. An installed package has
// no sources (package.json "files" ships dist/) and runs what `npm run build` (prepack) compiled.
// IDX_COMPILED=1 runs dist/ in a checkout whatever its stamp (the test suite and the benchmarks, after
// compiling it); IDX_COMPILED=0 runs the sources whatever it is (to compare).
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compiledHash, sourceHash } from './source-hash.js';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

let compiledIsCurrent;
/** Whether dist/ was compiled from the sources as they are now (once a process). */
function distIsCurrent() {
  if (compiledIsCurrent === undefined) {
    const stamp = compiledHash(ROOT);
    compiledIsCurrent = stamp !== undefined && stamp === sourceHash(ROOT);
  }
  return compiledIsCurrent;
}

let tsxRegistered = false;

/** A module of idx by its path without extension, from the sources or from dist/. */
async function importModule(path) {
  const source = new URL(`../${path}.ts`, import.meta.url);
  const compiled = new URL(`../dist/${path}.js`, import.meta.url);
  // (an installed package has no sources to hash or run)
  const fromSources = existsSync(fileURLToPath(source)) && (process.env.IDX_COMPILED === '0' || (process.env.IDX_COMPILED !== '1' && !distIsCurrent()));
  if (fromSources) {
    if (!tsxRegistered) {
      const { register } = await import('tsx/esm/api');
      register();
      tsxRegistered = true;
    }
    return import(source.href);
  }
  if (existsSync(fileURLToPath(compiled))) {
    // the build's bundle of the program (scripts/bundle-programs.ts): a few files to load rather than
    // a thousand, half a second less start-up; IDX_BUNDLE=0 runs the unbundled dist/ (to compare)
    const bundled = new URL(`../dist/bundle/${path.replaceAll('/', '.')}.js`, import.meta.url);
    const useBundle = process.env.IDX_BUNDLE !== '0' && existsSync(fileURLToPath(bundled));
    return import((useBundle ? bundled : compiled).href);
  }
  process.stderr.write('error: idx is not built: run `npm run build` in its package folder\n');
  process.exit(1);
}

/** `program`: the module path without extension, e.g. `apps/node/main`. */
export async function load(program) {
  // Every program outlives a closed stdout/stderr (`idx-node … | head`): its lines are dropped,
  // it keeps running and still stops on SIGINT/SIGTERM (docs/usage.md "Signals and closed output").
  const { ignoreClosedOutput } = await importModule('infra/logging/ignore-closed-output');
  ignoreClosedOutput();
  return importModule(program);
}

/**
 * Ends the program with `code` once its event loop is empty, rather than at once: isolated-vm tears a
 * disposed isolate down on a thread of its own, holding the loop open meanwhile, and a process.exit()
 * that races it crashes in the teardown (SIGSEGV in ivm::PlatformDelegate::UnregisterIsolate). Then
 * still process.exit(): Node's own teardown of the environment can trip isolated-vm's weak callbacks
 * (test/support/exit-when-done.ts). A handle left open must not keep the program alive: past
 * `graceMs` it exits anyway.
 */
export function exitWhenIdle(code, graceMs = 3000) {
  process.exitCode = code;
  process.once('beforeExit', () => process.exit(code));
  setTimeout(() => process.exit(code), graceMs).unref();
}

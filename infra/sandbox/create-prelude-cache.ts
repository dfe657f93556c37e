import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { IdxError } from '../../domain/errors.ts';
import { privateCacheDir } from '../files/private-cache-dir.ts';
import type { SandboxLibrary } from './sandbox-family.ts';

/**
 * The in-sandbox runtime (`isolate/prelude.ts` with the `buffer` and `readable-stream` packages and the builtins) as one
 * script, shared by every sandbox of a process. The script's value is the prelude's exports
 * (`{ install }`). `v8Cache` holds isolated-vm's compile cache once an isolate has produced it, so
 * isolates recreated after a timeout start faster.
 *
 * Compiled (dist/), the bundles are part of the build: `npm run build` makes them beside this module
 * (`bundles/<name>.js`, scripts/compile.ts), from the same files as the rest of dist/, so the first
 * run on a new machine starts as fast as the next (bundling the runtime took ~1.8 s of its start-up,
 * a Substrate project's library ~5 s). From the sources, or a dist/ built without them, a bundle
 * depends only on idx's own files, so it is made once per machine and kept under a hash of its
 * sources, in the user's private cache folder (private-cache-dir.ts: it runs in every sandbox, so
 * no one else may write it); a miss bundles it in a child process (bundle-prelude.ts), because
 * rollup and swc would otherwise stay in the indexer's memory (about 130 MiB).
 */
export interface PreludeCache {
  code(): Promise<string>;
  v8Cache?: ArrayBuffer;
  /** a family's library bundle (sandbox-family.ts), only loaded by sandboxes of that family's projects */
  library(library: SandboxLibrary): Promise<string>;
  /** the libraries' compile caches, by library name */
  libraryV8Caches: Map<string, ArrayBuffer>;
}

const run = promisify(execFile);
const PRELUDE = 'prelude';

export function createPreludeCache(): PreludeCache {
  const loaded = new Map<string, Promise<string>>();
  const load = (name: string, hash: (ext: string) => Promise<string>) => {
    let code = loaded.get(name);
    if (code === undefined) {
      code = loadBundle(name, hash).catch((err: unknown) => {
        loaded.delete(name);
        throw new IdxError('SANDBOX_PRELUDE_FAILED', `could not bundle the sandbox runtime: ${(err as Error)?.message ?? err}`, { cause: err });
      });
      loaded.set(name, code);
    }
    return code;
  };
  return {
    code: () => load(PRELUDE, (ext) => sourcesHash(dirname(fileURLToPath(import.meta.url)), ext)),
    library: (library) => load(library.name, (ext) => library.hash(ext)),
    libraryV8Caches: new Map(),
  };
}

async function loadBundle(name: string, sourcesHashOf: (ext: string) => Promise<string>): Promise<string> {
  const here = fileURLToPath(import.meta.url);
  // `.ts` from the sources (tsx, tests), `.js` once compiled to dist/
  const ext = extname(here);
  const built = builtBundleFile(dirname(here), name);
  if (ext === '.js' && existsSync(built)) return readFile(built, 'utf8');
  const file = join(await privateCacheDir(), `idx-sandbox-${name}-${await sourcesHashOf(ext)}.js`);
  if (!existsSync(file)) {
    const script = join(dirname(here), `bundle-prelude${ext}`);
    const loader = ext === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
    await run(process.execPath, [...loader, script, file, name], { maxBuffer: 16 * 2 ** 20 });
  }
  return readFile(file, 'utf8');
}

/** Where `npm run build` puts a sandbox bundle in dist/, beside the compiled `infra/sandbox/` (`sandboxDir`). */
export function builtBundleFile(sandboxDir: string, name: string): string {
  return join(sandboxDir, 'bundles', `${name}.js`);
}

/** A hash of everything the runtime's bundle is made of: the isolate sources, the allowed-modules list, and the `buffer` and `readable-stream` packages. */
async function sourcesHash(dir: string, ext: string): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(join(dir, 'isolate'), { recursive: true })).filter((f) => f.endsWith(ext)).sort();
  for (const f of files) hash.update(f).update(await readFile(join(dir, 'isolate', f)));
  hash.update(await readFile(fileURLToPath(import.meta.resolve('buffer/package.json'))));
  hash.update(await readFile(fileURLToPath(import.meta.resolve('readable-stream/package.json'))));
  hash.update(await readFile(join(dir, `bundle-prelude${ext}`)));
  hash.update(await readFile(join(dir, '..', '..', 'domain', 'mapping', `sandbox-modules${ext}`)));
  return hash.digest('hex').slice(0, 16);
}

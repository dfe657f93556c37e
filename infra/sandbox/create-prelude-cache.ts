import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { IdxError } from '../../domain/errors.ts';

/**
 * The in-sandbox runtime (`isolate/prelude.ts` with the `buffer` and `readable-stream` packages and the builtins) as one
 * script, shared by every sandbox of a process. The script's value is the prelude's exports
 * (`{ install }`). `v8Cache` holds isolated-vm's compile cache once an isolate has produced it, so
 * isolates recreated after a timeout start faster.
 *
 * The bundle depends only on idx's own files, so it is made once per machine and kept in the temp
 * folder under a hash of its sources; a miss bundles it in a child process (bundle-prelude.ts),
 * because rollup and swc would otherwise stay in the indexer's memory (about 130 MiB).
 */
export interface PreludeCache {
  code(): Promise<string>;
  v8Cache?: ArrayBuffer;
  /** the Substrate codec library (`@polkadot/types`), only loaded by sandboxes of Substrate projects */
  substrate(): Promise<string>;
  substrateV8Cache?: ArrayBuffer;
}

const run = promisify(execFile);

export function createPreludeCache(): PreludeCache {
  const loaded = new Map<'prelude' | 'substrate', Promise<string>>();
  const load = (which: 'prelude' | 'substrate') => {
    let code = loaded.get(which);
    if (code === undefined) {
      code = loadBundle(which).catch((err: unknown) => {
        loaded.delete(which);
        throw new IdxError('SANDBOX_PRELUDE_FAILED', `could not bundle the sandbox runtime: ${(err as Error)?.message ?? err}`, { cause: err });
      });
      loaded.set(which, code);
    }
    return code;
  };
  return { code: () => load('prelude'), substrate: () => load('substrate') };
}

async function loadBundle(which: 'prelude' | 'substrate'): Promise<string> {
  const here = fileURLToPath(import.meta.url);
  // `.ts` from the sources (tsx, tests), `.js` once compiled to dist/
  const ext = extname(here);
  const hash = which === 'prelude' ? await sourcesHash(dirname(here), ext) : await substrateHash(dirname(here), ext);
  const file = join(tmpdir(), `idx-sandbox-${which}-${hash}.js`);
  if (!existsSync(file)) {
    const script = join(dirname(here), `bundle-prelude${ext}`);
    const loader = ext === '.ts' ? ['--import', import.meta.resolve('tsx')] : [];
    await run(process.execPath, [...loader, script, file, which], { maxBuffer: 16 * 2 ** 20 });
  }
  return readFile(file, 'utf8');
}

/** The Substrate library's bundle depends on its sources (with the registry making it shares with the node), the bundler and the installed `@polkadot/types`. */
async function substrateHash(dir: string, ext: string): Promise<string> {
  const hash = createHash('sha256');
  const files = (await readdir(join(dir, 'substrate-lib'))).filter((f) => f.endsWith(ext)).sort();
  for (const f of files) hash.update(f).update(await readFile(join(dir, 'substrate-lib', f)));
  hash.update(await readFile(join(dir, '..', 'chains', 'substrate', `create-runtime-registry${ext}`)));
  hash.update(await readFile(join(dir, `bundle-prelude${ext}`)));
  hash.update(await readFile(fileURLToPath(import.meta.resolve('@polkadot/types/package.json'))));
  hash.update(await readFile(fileURLToPath(import.meta.resolve('@polkadot/types-known/package.json'))));
  return hash.digest('hex').slice(0, 16);
}

/** A hash of everything the bundle is made of: the isolate sources, the allowed-modules list, and the `buffer` and `readable-stream` packages. */
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

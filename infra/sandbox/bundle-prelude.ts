import { createRequire } from 'node:module';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { dirname, extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { rollup, type Plugin, type RollupOptions } from 'rollup';
import { sandboxLibraries } from './families/registry.ts';

/**
 * Bundles the in-sandbox runtime (`isolate/prelude.ts`, the `buffer` package, the builtins) into one
 * script with rollup, or a family's library bundle (its recipe, families/<family>/). Run as a script (`bundle-prelude.ts <out-file>`) by create-prelude-cache.ts in a
 * child process, so that rollup and swc never load into the indexer's own memory.
 */
// Loaded through require: the typings of these two plugins do not compile under this repository's settings.
const requireCjs = createRequire(import.meta.url);
const commonjs = requireCjs('@rollup/plugin-commonjs') as (options?: object) => Plugin;
const swc = (requireCjs('@rollup/plugin-swc') as { swc: (options: object) => Plugin }).swc;

/** Bundles the runtime every project gets (`prelude`), or a family's library by its name (sandbox-family.ts). */
export async function bundlePrelude(which = 'prelude'): Promise<string> {
  const here = fileURLToPath(import.meta.url);
  // `.ts` from the sources (tsx, tests), `.js` once compiled to dist/
  const ext = extname(here);
  const isolateDir = `${dirname(here)}/isolate`;
  const library = sandboxLibraries.find((l) => l.name === which);
  if (which !== 'prelude' && library === undefined) throw new Error(`no sandbox library is named ${which}`);
  const bundle = await rollup(
    library !== undefined
      ? ((await library.recipe(ext)) as RollupOptions)
      : {
          input: `${isolateDir}/prelude${ext}`,
          plugins: [
            streamShims(isolateDir, ext),
            // the npm `buffer` package, not Node's: the isolate has no Node
            nodeResolve({ preferBuiltins: false, browser: true }),
            commonjs(),
            // the isolate's own sources, and the domain modules it shares with the host (the allowed modules, a family's custom data sources)
            swc({
              include: [`${isolateDir}/**`, `${resolve(dirname(here), '../../domain')}/**/*${ext}`],
              swc: { jsc: { target: 'es2022', parser: { syntax: 'typescript' } } },
            }),
          ],
          onwarn(warning, warn) {
            if (warning.code !== 'CIRCULAR_DEPENDENCY') warn(warning);
          },
        },
  );
  try {
    const { output } = await bundle.generate({ format: 'cjs', exports: 'named', strict: true });
    return `(function () {\nvar module = { exports: {} }, exports = module.exports;\n${output[0].code}\nreturn module.exports;\n})()`;
  } finally {
    await bundle.close();
  }
}

/**
 * readable-stream (the sandbox's `stream`) is written for browserify's Node shims; here they are the
 * sandbox's own: `events`, the legacy `Stream` its classes inherit from, and `process.nextTick`
 * from the timers. `Readable.from` is taken from its Node build (its browser build only throws).
 */
function streamShims(isolateDir: string, ext: string): Plugin {
  const root = `${dirname(requireCjs.resolve('readable-stream/package.json'))}/`;
  const events = `${isolateDir}/builtins/events${ext}`;
  const legacy = JSON.stringify(`${isolateDir}/builtins/legacy-stream${ext}`);
  const timers = JSON.stringify(`${isolateDir}/timers${ext}`);
  return {
    name: 'idx-stream-shims',
    resolveId(source, importer) {
      if (source === 'events') return events;
      if (importer?.startsWith(root) && source === './internal/streams/from') return `${root}lib/internal/streams/from.js`;
      return null;
    },
    transform(code, id) {
      if (!id.startsWith(root)) return null;
      const out = code.replace(/require\('\.\/internal\/streams\/stream'\)/g, `require(${legacy}).Stream`);
      return /\bprocess\./.test(out) ? `var process = require(${timers});\n${out}` : out;
    },
  };
}

/** Writes `text` to `out` whole or not at all (another process may race). */
async function writeWhole(out: string, text: string): Promise<void> {
  const part = `${out}.${process.pid}.part`;
  await writeFile(part, text);
  await rename(part, out);
}

/** Every bundle the sandbox may load, the runtime and each family's library, into `dir` as `<name>.js` (`npm run build`). */
export async function bundleAll(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true });
  const names = ['prelude', ...sandboxLibraries.map((l) => l.name)];
  await Promise.all(names.map(async (name) => writeWhole(join(dir, `${name}.js`), await bundlePrelude(name))));
}

// As a script: `<out-file> [name]` bundles one into the file, `--all <dir>` every one into the folder.
if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const [first, second] = process.argv.slice(2);
  if (first === undefined || (first === '--all' && second === undefined)) {
    throw new Error(`usage: bundle-prelude <out-file> [prelude|${sandboxLibraries.map((l) => l.name).join('|')}] | bundle-prelude --all <dir>`);
  }
  if (first === '--all') await bundleAll(second!);
  else await writeWhole(first, await bundlePrelude(second ?? 'prelude'));
}

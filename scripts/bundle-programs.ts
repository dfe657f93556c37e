// The second step of `npm run build` (compile.ts): each program's compiled modules, and the pure
// JavaScript packages it loads most of, bundled into a few files in dist/bundle/. Node loads an ES
// module graph file by file (resolve, read, compile, link): an idx-node start read about a thousand
// files, 0.4–0.6 s of its start-up. The unbundled dist/ stays beside it, the truth for tests of
// single modules and for the files idx finds relative to its own modules (migrations, the sandbox's
// prelude, workers): in the bundle, every `import.meta.url` still names the module it came from.
import * as esbuild from 'esbuild';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIRNAME_PROBES, PROGRAM_BUILDS, bundleName, duplicatedPackages, packageOf } from './bundle-rules.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const dist = join(root, 'dist');
const outdir = join(dist, 'bundle');

/** A bundled file that finds files beside itself would look beside the bundle instead: refused, unless rewritten (import.meta.url). */
const FINDS_ITS_OWN_FILES = /(?<!['"`])\b(__dirname|__filename|import\.meta\.dirname|import\.meta\.filename)\b(?!['"`])/;

async function bundleAll(): Promise<void> {
  rmSync(outdir, { recursive: true, force: true });
  const problems: string[] = [];
  for (const { entries, packages } of PROGRAM_BUILDS) problems.push(...(await bundle(entries, packages)));
  if (problems.length > 0) throw new Error(`the bundle is unsafe:\n${[...new Set(problems)].map((p) => `  - ${p}`).join('\n')}`);
}

/** One esbuild run over `entries`, bundling idx's modules and `packages`; what makes it unsafe. */
async function bundle(entries: readonly string[], packages: readonly string[]): Promise<string[]> {
  const externals = new Map<string, string>();
  const problems: string[] = [];
  const plugin: esbuild.Plugin = {
    name: 'idx-bundle',
    setup(build) {
      build.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.kind === 'entry-point' || args.path.startsWith('node:')) return undefined;
        const name = packageOf(args.path);
        if (packages.includes(name)) return undefined;
        if (!externals.has(name)) externals.set(name, relative(root, args.importer));
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        let text = await readFile(args.path, 'utf8');
        const at = relative(root, args.path);
        const found = FINDS_ITS_OWN_FILES.exec(text.replace(/\/\/.*$|\/\*[\s\S]*?\*\//gm, ''));
        if (found && !DIRNAME_PROBES.includes(at)) problems.push(`${at} uses ${found[0]}: in a bundle it would name dist/bundle/ (keep its package external)`);
        // every output file sits in dist/bundle/, so one path leads back to where the module was
        if (text.includes('import.meta.url'))
          text = text.replaceAll('import.meta.url', `new URL(${JSON.stringify(relative(outdir, args.path))}, import.meta.url).href`);
        return { contents: text, loader: 'js' };
      });
    },
  };
  const built = await esbuild.build({
    entryPoints: Object.fromEntries(entries.map((e) => [bundleName(e), join(dist, `${e}.js`)])),
    outdir,
    absWorkingDir: root,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: 'linked',
    logLevel: 'warning',
    chunkNames: 'chunk-[hash]',
    // CommonJS packages in the bundle call require(): the ES module output has none of its own
    banner: { js: `import { createRequire as __idxCreateRequire } from 'node:module'; const require = __idxCreateRequire(import.meta.url);` },
    plugins: [plugin],
    metafile: true,
  });
  // the banner's `require` is text esbuild does not see: a module's own top-level one would clash with it
  for (const file of Object.keys(built.metafile.outputs).filter((f) => f.endsWith('.js')))
    if (/^(var|let|const|function|class) (require|__idxCreateRequire)\b/m.test(readFileSync(join(root, file), 'utf8')))
      problems.push(`${file} declares require at its top level, as the bundle's banner does`);
  const duplicated = duplicatedPackages(packages, [...externals.keys()], (name) => dependenciesOf(name));
  for (const d of duplicated)
    problems.push(`${d.external} (external, imported by ${externals.get(d.external)}) loads ${d.bundled}, which is bundled: two copies would run`);
  return problems;
}

/** A package's dependencies as installed at the top of node_modules (where the bundle's copy comes from), or none. */
function dependenciesOf(name: string): string[] {
  const file = join(root, 'node_modules', name, 'package.json');
  if (!existsSync(file)) return [];
  const pkg = JSON.parse(readFileSync(file, 'utf8')) as Record<'dependencies' | 'peerDependencies' | 'optionalDependencies', object | undefined>;
  return [...Object.keys(pkg.dependencies ?? {}), ...Object.keys(pkg.peerDependencies ?? {}), ...Object.keys(pkg.optionalDependencies ?? {})];
}

bundleAll().then(
  () => process.exit(0),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

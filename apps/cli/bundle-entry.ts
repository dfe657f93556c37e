import { SANDBOX_MODULES } from '../../domain/mapping/sandbox-modules.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { dirname, relative, resolve } from 'node:path';
import commonjsModule from '@rollup/plugin-commonjs';
import jsonModule from '@rollup/plugin-json';
import { nodeResolve } from '@rollup/plugin-node-resolve';
import { minify, type Options as SwcOptions } from '@swc/core';
import { rollup, type Plugin, type RollupError, type RollupLog } from 'rollup';
import { IdxError } from '../../domain/errors.ts';
import { swcErrorMessage } from '../../infra/project/compile-project-ts.ts';
import type { BuildMode } from './build-mode.ts';
import type { Reporter } from './reporter.ts';
import { contractRuntimePlugin } from './contract-runtime-plugin.ts';
import { subqlShimsPlugin } from './subql-shims-plugin.ts';
import { tsconfigPathsPlugin } from './tsconfig-paths-plugin.ts';

export interface BundleEntryOptions {
  /** the project folder: imports are resolved from it and errors name files relative to it */
  root: string;
  /** the entry source, e.g. `<root>/src/index.ts` */
  input: string;
  /** the bundle to write, e.g. `<root>/dist/index.js`; its source map goes beside it */
  output: string;
  mode: BuildMode;
  reporter: Reporter;
}

// These plugins' typings describe a CommonJS default export; under Node's ESM the default import is
// the plugin function itself. Take whichever is the function.
const commonjs = interopDefault(commonjsModule as unknown as typeof commonjsModule.default);
const json = interopDefault(jsonModule as unknown as typeof jsonModule.default);

const EXTENSIONS = ['.ts', '.tsx', '.mts', '.cts', '.mjs', '.js', '.cjs', '.json'];
const BUILTINS = new Set(builtinModules);
/** the package.json `exports` conditions imports resolve with (beside default, import/require and module) */
const EXPORT_CONDITIONS = ['node'];
const RESOLVED_CONDITIONS = ['default', 'module', 'import', 'require', ...EXPORT_CONDITIONS];

/**
 * Bundles one entry into ONE self-contained CommonJS file (no chunks): the sandbox evaluates it as
 * `(function (module, exports, require) { … })` and calls the exported handlers. swc compiles the
 * TypeScript, rollup links it with the project's dependencies; only Node built-ins stay external,
 * as `require("<name>")` without the `node:` prefix.
 */
export async function bundleEntry(options: BundleEntryOptions): Promise<{ exports: string[] }> {
  const { root, input, output, mode, reporter } = options;
  const warnings: string[] = [];
  let bundle;
  let exports: string[] = [];
  try {
    bundle = await rollup({
      input,
      plugins: [
        subqlShimsPlugin(),
        contractRuntimePlugin(),
        builtinsPlugin(root, reporter),
        tsExtensionPlugin(),
        tsconfigPathsPlugin(root),
        // the conditions webpack's `target: 'node'` (SubQuery's build) resolves with: packages such as
        // @polkadot/x-randomvalues offer only node/browser/react-native entries
        nodeResolve({ extensions: EXTENSIONS, preferBuiltins: true, rootDir: root, exportConditions: EXPORT_CONDITIONS }),
        commonjs({ extensions: ['.js', '.cjs'] }),
        json({ preferConst: true }),
        nodeEnvPlugin(mode),
        swcPlugin()({
          include: /\.[mc]?tsx?$/,
          exclude: /node_modules/,
          swc: { swcrc: false, configFile: false, jsc: { target: 'es2022', parser: { syntax: 'typescript', decorators: true } } },
        }),
        projectCodeAsWrittenPlugin(),
      ],
      onLog(level, log, handler) {
        // rollup leaves an unresolved package import external with a warning; in the sandbox it
        // would fail at run time, so it fails the build here
        if (log.code === 'UNRESOLVED_IMPORT') handler('error', { ...log, message: unresolvedMessage(root, log) });
        else if (log.code === 'CIRCULAR_DEPENDENCY' && (log.ids ?? []).some((id) => id.includes('node_modules')))
          return; // libraries' own affair
        else if (level === 'warn') warnings.push(describeLog(root, log));
      },
    });
    const written = await bundle.write({
      file: output,
      format: 'cjs',
      exports: 'named',
      sourcemap: true,
      // the map points at the project's TypeScript and carries it, so errors can show the source line
      sourcemapExcludeSources: false,
      inlineDynamicImports: true,
      generatedCode: 'es2015',
      interop: 'auto',
      plugins: mode === 'production' ? [minifyPlugin()] : [],
    });
    exports = written.output[0].exports;
  } catch (err) {
    throw buildError(root, input, err);
  } finally {
    await bundle?.close();
  }
  for (const w of warnings) reporter.warn(w);
  return { exports };
}

/**
 * Node built-ins (`fs`, `node:crypto`, …) stay external. Those the sandbox does not provide get a
 * warning, but only if the bundle still requires them after tree-shaking: libraries often import
 * Node modules in code a mapping never reaches.
 */
function builtinsPlugin(root: string, reporter: Reporter): Plugin {
  const importers = new Map<string, string>(); // built-in → first file importing it
  return {
    name: 'idx-builtins',
    resolveId(source, importer) {
      const name = source.startsWith('node:') ? source.slice(5) : source;
      if (!BUILTINS.has(name) && !source.startsWith('node:')) return null;
      if (!importers.has(name)) importers.set(name, `${rel(root, importer)} imports "${source}"`);
      return { id: name, external: true };
    },
    generateBundle(_options, bundle) {
      for (const chunk of Object.values(bundle)) {
        if (chunk.type !== 'chunk') continue;
        for (const id of chunk.imports) {
          if (SANDBOX_MODULES.includes(id.split('/')[0]!)) continue;
          reporter.warn(
            `${importers.get(id) ?? `the bundle requires "${id}"`}: the sandbox provides only ${SANDBOX_MODULES.join(', ')}; ` +
              'other Node modules work only when the node runs with --unsafe',
          );
        }
      }
    },
  };
}

/**
 * `process.env.NODE_ENV` becomes the build mode, as webpack (SubQuery's bundler) does: libraries
 * test it, and the sandbox has no `process`. The replacement keeps the expression's length so
 * source maps stay exact; assignments to it are left alone.
 */
function nodeEnvPlugin(mode: BuildMode): Plugin {
  const expr = 'process.env.NODE_ENV';
  const value = JSON.stringify(mode);
  const replacement = `(${value}${' '.repeat(expr.length - value.length - 2)})`;
  return {
    name: 'idx-node-env',
    transform(code) {
      if (!code.includes(expr)) return null;
      return { code: code.replace(/\bprocess\.env\.NODE_ENV\b(?!\s*=(?!=))/g, replacement), map: null };
    },
  };
}

const OWN_CODE = /\.[mc]?[jt]sx?$/;

/**
 * The project's own code runs as written: rollup drops what it judges free of side effects, such as
 * `while (Date.now() < until) {}`, but a mapping's time is an effect too (a busy-wait, a benchmark).
 * So the project's modules are not tree-shaken; its dependencies still are, which is where nearly
 * all dead code is (an ABI library's unused half, a polyfill's unused exports).
 */
function projectCodeAsWrittenPlugin(): Plugin {
  return {
    name: 'idx-project-code-as-written',
    transform(code, id) {
      if (id.startsWith('\0') || id.includes('/node_modules/') || !OWN_CODE.test(id)) return null;
      return { code, map: null, moduleSideEffects: 'no-treeshake' };
    },
  };
}

/** `./mapping.js` finds `./mapping.ts`: TypeScript's ESM import style. */
function tsExtensionPlugin(): Plugin {
  return {
    name: 'idx-ts-extension',
    resolveId(source, importer) {
      if (importer === undefined || !source.startsWith('.')) return null;
      const m = /\.([mc]?)js$/.exec(source);
      if (m === null) return null;
      const plain = resolve(dirname(importer), source);
      if (isFile(plain)) return null;
      const ts = plain.replace(/js$/, 'ts');
      return isFile(ts) ? ts : isFile(`${ts}x`) ? `${ts}x` : null;
    },
  };
}

/**
 * @rollup/plugin-swc, loaded without its typings: they import the package's TypeScript sources,
 * which do not compile under this repository's settings.
 */
function swcPlugin(): (options: { include?: RegExp; exclude?: RegExp; swc?: SwcOptions }) => Plugin {
  const required = createRequire(import.meta.url)('@rollup/plugin-swc') as { swc: (options: object) => Plugin };
  return required.swc;
}

function interopDefault<T>(m: T): T {
  const inner = (m as { default?: unknown }).default;
  return (typeof inner === 'function' ? inner : m) as T;
}

function minifyPlugin(): Plugin {
  return {
    name: 'idx-minify',
    async renderChunk(code) {
      // Names are kept so stack traces and entity class names stay readable; the map does the rest.
      const result = await minify(code, {
        compress: { keep_classnames: true, keep_fnames: true },
        mangle: { keep_classnames: true, keep_fnames: true },
        module: false,
        sourceMap: true,
      });
      return { code: result.code, map: result.map };
    },
  };
}

function unresolvedMessage(root: string, log: RollupLog): string {
  const source =
    log.exporter ??
    /"([^"]+)"|'([^']+)'/
      .exec(log.message)
      ?.slice(1)
      .find((x) => x !== undefined) ??
    '?';
  const hint =
    source.startsWith('.') || source.startsWith('/')
      ? 'no such file (tried the extensions .ts, .js, .json and index files)'
      : (exportsHint(source, log.id ?? root) ?? `the package is not installed: run npm install ${packageName(source)} in ${root}`);
  return `${rel(root, log.id)} imports "${source}", which cannot be resolved: ${hint}`;
}

/**
 * When the package is installed but its package.json `exports` has no entry for the import under
 * the conditions idx build resolves with, says which conditions it offers.
 */
function exportsHint(specifier: string, importer: string): string | undefined {
  const name = packageName(specifier);
  let manifest: string | undefined;
  for (let dir = dirname(importer); ; dir = dirname(dir)) {
    const candidate = resolve(dir, 'node_modules', name, 'package.json');
    if (isFile(candidate)) {
      manifest = candidate;
      break;
    }
    if (dirname(dir) === dir) return undefined;
  }
  let exports: unknown;
  try {
    exports = (JSON.parse(readFileSync(manifest, 'utf8')) as { exports?: unknown }).exports;
  } catch {
    return undefined;
  }
  if (exports === undefined || exports === null) return `the package ${name} is installed (${manifest}) but has no file for "${specifier}"`;
  const subpath = `.${specifier.slice(name.length)}`;
  const entry =
    typeof exports === 'object' && !Array.isArray(exports) && Object.keys(exports).some((k) => k.startsWith('.'))
      ? (exports as Record<string, unknown>)[subpath]
      : exports;
  if (entry === undefined) return `the package ${name} is installed but its package.json "exports" has no entry "${subpath}"`;
  const offered = typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? Object.keys(entry) : [];
  return (
    `the package ${name} is installed but its package.json "exports" offers "${subpath}" only under the conditions ${offered.join(', ') || '(none)'}, ` +
    `none of which idx build resolves with (${RESOLVED_CONDITIONS.join(', ')})`
  );
}

function buildError(root: string, input: string, err: unknown): IdxError {
  if (err instanceof IdxError) return err;
  const e = err as RollupError & { cause?: unknown };
  if (e.cause instanceof IdxError) return e.cause;
  // plugin errors are wrapped by rollup; the IdxError thrown by a resolveId hook is kept as is
  const message = String(e?.message ?? err);
  if (e?.code === 'UNRESOLVED_IMPORT') {
    return new IdxError('BUILD_IMPORT_NOT_FOUND', message.includes(' cannot be resolved: ') ? message : unresolvedMessage(root, e), { cause: err });
  }
  if (e?.plugin === 'swc' && e.id !== undefined) {
    // swcErrorMessage gives `<basename>:line:col: message (in <path>)`; users want the project path up front
    const text = swcErrorMessage(e.id, message.replace(/^\[plugin swc\]\s*/, ''));
    const m = /^[^:]+:(\d+):(\d+): ([\s\S]*) \(in [^)]*\)$/.exec(text);
    return new IdxError('BUILD_SYNTAX_ERROR', m ? `${rel(root, e.id)}:${m[1]}:${m[2]}: ${m[3]}` : text, { cause: err });
  }
  if (e?.loc !== undefined) {
    const file = rel(root, e.loc.file ?? e.id);
    return new IdxError('BUILD_FAILED', `${file}:${e.loc.line}:${e.loc.column + 1}: ${message.replace(/^\[plugin [^\]]+\]\s*/, '')}`, { cause: err });
  }
  const where = e?.id !== undefined ? rel(root, e.id) : rel(root, input);
  return new IdxError('BUILD_FAILED', `${where}: ${message}`, { cause: err });
}

function describeLog(root: string, log: RollupLog): string {
  const at = log.loc ? `${rel(root, log.loc.file ?? log.id)}:${log.loc.line}:${log.loc.column + 1}: ` : log.id ? `${rel(root, log.id)}: ` : '';
  return `${at}${log.message}`;
}

function rel(root: string, file: string | undefined): string {
  if (file === undefined) return '(entry)';
  const r = relative(root, file);
  return r.startsWith('..') ? file : r;
}

function packageName(specifier: string): string {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!;
}

function isFile(path: string): boolean {
  return existsSync(path) && statSync(path).isFile();
}

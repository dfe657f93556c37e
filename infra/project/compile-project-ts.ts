import { SUBQL_TYPE_SHIMS } from '../../domain/project/subql-type-shims.ts';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { builtinModules, createRequire, SourceMap } from 'node:module';
import { basename, dirname, extname, isAbsolute, resolve } from 'node:path';
import { compileFunction } from 'node:vm';
import { IdxError } from '../../domain/errors.ts';
import { checkValueDepth } from '../../domain/input-limits.ts';
import { createDotenvShim, type Env } from './dotenv-shim.ts';
import { toPlainData } from './to-plain-data.ts';

export interface CompileProjectTsOptions {
  /**
   * The environment project.ts sees as `process.env`; defaults to a copy of this process's.
   * It is a copy so that `dotenv.config()` in a manifest does not change the node's own settings.
   */
  env?: Env;
}

const RESOLVE_EXTENSIONS = ['.ts', '.mts', '.cts', '.js', '.mjs', '.cjs', '.json'];
const BUILTINS = new Set(builtinModules);

/**
 * Compiles a `project.ts` with swc to CommonJS and evaluates it; returns its default export
 * (or `module.exports`) as plain data. Imports: the SubQuery type packages and `dotenv` are
 * provided; relative files are compiled the same way; Node built-ins and the project's own
 * node_modules are required normally.
 */
export async function compileProjectTs(file: string, options: CompileProjectTsOptions = {}): Promise<unknown> {
  const entry = resolve(file);
  if (!existsSync(entry)) throw new IdxError('MANIFEST_NOT_FOUND', `${entry} does not exist`);
  const root = dirname(entry);
  // loaded here rather than with the module: a node whose manifest is YAML never needs swc (~40 ms of start-up)
  const { transformSync } = await import('@swc/core');
  const env: Env = { ...(options.env ?? process.env) };
  // project.ts reads process.env through this object, so its env changes stay local.
  const scopedProcess = Object.create(process, { env: { value: env, enumerable: true, writable: true } }) as NodeJS.Process;
  const dotenv = createDotenvShim(env, root);
  const provided: Record<string, () => unknown> = {
    ...Object.fromEntries(Object.entries(SUBQL_TYPE_SHIMS).map(([name, shim]) => [name, () => shim])),
    dotenv: () => dotenv,
    'dotenv/config': () => (dotenv.config(), {}),
  };
  const cache = new Map<string, { exports: unknown }>();
  const sourceMaps = new Map<string, SourceMap>();

  const load = (path: string): unknown => {
    const cached = cache.get(path);
    if (cached) return cached.exports;
    const module = { exports: {} as unknown };
    cache.set(path, module);
    const source = readFileSync(path, 'utf8');
    if (extname(path) === '.json') {
      module.exports = JSON.parse(source);
      return module.exports;
    }
    const { code, map } = compile(transformSync, path, source);
    if (map !== undefined) sourceMaps.set(path, new SourceMap(JSON.parse(map)));
    const fn = compileFunction(code, ['exports', 'require', 'module', '__filename', '__dirname', 'process'], { filename: path });
    fn.call(module.exports, module.exports, requireFrom(path), module, path, dirname(path), scopedProcess);
    return module.exports;
  };

  const requireFrom = (from: string) => (specifier: string) => {
    if (Object.hasOwn(provided, specifier)) return provided[specifier]!();
    if (specifier.startsWith('.') || isAbsolute(specifier)) return load(resolveLocal(from, specifier));
    const hostRequire = createRequire(from);
    if (specifier.startsWith('node:') || BUILTINS.has(specifier)) return hostRequire(specifier);
    try {
      return hostRequire(specifier);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND' && String((err as Error).message).includes(`'${specifier}'`)) {
        throw new IdxError(
          'MANIFEST_IMPORT_NOT_FOUND',
          `${from} imports "${specifier}", which is not installed in ${root}/node_modules: run npm install in the project folder, or remove the import ` +
            `(${Object.keys(SUBQL_TYPE_SHIMS).join(', ')} and dotenv are provided by idx)`,
          { cause: err },
        );
      }
      throw err;
    }
  };

  let exported: unknown;
  try {
    const moduleExports = load(entry) as Record<string, unknown> | undefined;
    exported =
      moduleExports !== null && typeof moduleExports === 'object' && '__esModule' in moduleExports
        ? moduleExports.default
        : (moduleExports?.default ?? moduleExports);
    exported = await exported;
  } catch (err) {
    if (err instanceof IdxError) throw err;
    const at = sourcePosition(err, sourceMaps);
    const where = at === undefined ? entry : `${at.file}:${at.line}:${at.column}`;
    throw new IdxError('MANIFEST_EVALUATION_FAILED', `${where}: project manifest failed while running: ${(err as Error)?.message ?? String(err)}`, {
      cause: err,
    });
  }
  if (exported === undefined || exported === null || (typeof exported === 'object' && Object.keys(exported).length === 0 && !(exported instanceof Map))) {
    throw new IdxError('MANIFEST_NO_DEFAULT_EXPORT', `${entry} exports no project: end it with \`export default project;\``);
  }
  // toPlainData recurses: a manifest object that contains itself, or nests past the limit, is refused first
  checkValueDepth(exported, entry);
  return toPlainData(exported);
}

/** Where in the user's TypeScript an evaluation error was thrown, through swc's source maps. */
function sourcePosition(err: unknown, maps: Map<string, SourceMap>): { file: string; line: number; column: number } | undefined {
  // the innermost frame in one of the compiled files
  for (const frame of String((err as Error)?.stack ?? '').split('\n')) {
    for (const [file, map] of maps) {
      const at = frame.lastIndexOf(`${file}:`);
      if (at < 0) continue;
      const m = /^:(\d+):(\d+)/.exec(frame.slice(at + file.length));
      if (m === null) continue;
      const entry = map.findEntry(Number(m[1]) - 1, Number(m[2]) - 1) as { originalLine?: number; originalColumn?: number };
      if (entry.originalLine === undefined) return { file, line: Number(m[1]), column: Number(m[2]) };
      return { file, line: entry.originalLine + 1, column: (entry.originalColumn ?? 0) + 1 };
    }
  }
  return undefined;
}

function compile(transformSync: typeof import('@swc/core').transformSync, path: string, source: string): { code: string; map?: string } {
  const ts = /\.[mc]?ts$/.test(path);
  try {
    return transformSync(source, {
      filename: path,
      swcrc: false,
      configFile: false,
      jsc: { parser: ts ? { syntax: 'typescript' } : { syntax: 'ecmascript' }, target: 'es2022' },
      module: { type: 'commonjs' },
      sourceMaps: true,
    });
  } catch (err) {
    throw new IdxError('MANIFEST_COMPILE_FAILED', swcErrorMessage(path, String((err as Error)?.message ?? err)), { cause: err });
  }
}

/**
 * swc reports `x <message>` followed by a code frame; turn that into `file:line:column: message`.
 * The frame's caret row (`   :      ^`) gives the column; the code row above it gives the line.
 */
export function swcErrorMessage(path: string, raw: string): string {
  const text = raw.replace(/\x1b\[[0-9;]*m/g, '');
  const lines = text.split('\n');
  const message = (lines.find((l) => /^\s*(x|×)\s/.test(l)) ?? lines[0] ?? '').replace(/^\s*(x|×)\s+/, '').trim();
  const caretRow = lines.findIndex((l) => /^\s*:\s.*\^/.test(l));
  if (caretRow > 0) {
    const codeRow = lines
      .slice(0, caretRow)
      .reverse()
      .find((l) => /^\s*\d+\s*\|/.test(l));
    const lineNo = codeRow ? Number(/^\s*(\d+)/.exec(codeRow)![1]) : undefined;
    const caret = lines[caretRow]!;
    const column = caret.indexOf('^') - caret.indexOf(':') - 1;
    if (lineNo !== undefined) return `${basename(path)}:${lineNo}:${column}: ${message} (in ${path})`;
  }
  return `${path}: ${message}`;
}

/** `./config` → `./config.ts`, `./config/index.ts`, …; `./x.js` also finds `./x.ts` (TypeScript's ESM style). */
function resolveLocal(from: string, specifier: string): string {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, ...RESOLVE_EXTENSIONS.map((e) => base + e), ...RESOLVE_EXTENSIONS.map((e) => resolve(base, `index${e}`))];
  if (/\.[mc]?js$/.test(base)) candidates.push(base.replace(/js$/, 'ts'));
  const found = candidates.find((c) => existsSync(c) && statSync(c).isFile());
  if (found === undefined) {
    throw new IdxError(
      'MANIFEST_IMPORT_NOT_FOUND',
      `${from} imports "${specifier}", but no such file exists (looked for ${base} with ${RESOLVE_EXTENSIONS.join(', ')})`,
    );
  }
  return found;
}

import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { createRequire, isBuiltin, SourceMap } from 'node:module';
import { dirname, extname, join, relative, sep } from 'node:path';
import { IdxError } from '../../domain/errors.ts';
import { SANDBOX_MODULES, SANDBOX_MODULES_TEXT } from '../../domain/mapping/sandbox-modules.ts';
import { hostSyncCall, type HostBridge } from './create-host-bridge.ts';
import { createIsolatedRuntime } from './create-isolated-runtime.ts';
import { createPreludeCache, type PreludeCache } from './create-prelude-cache.ts';
import { defaultSandboxFamily } from './families/registry.ts';
import type { ChainTypesModule, LoadedChainTypes } from './isolate/wire.ts';
import { mapStack } from './map-stack.ts';

export interface EvaluateChainTypesOptions {
  /** the project folder: modules resolve from it, and only its files (its node_modules included) may be required */
  root: string;
  /** the chain-types file (.js or .cjs), absolute */
  file: string;
  /** how errors name the file (default: its path in the project) */
  label?: string;
  /** bounds the evaluation (default 10000 ms) */
  timeoutMs?: number;
  /** the isolate's heap limit (default 256) */
  memoryLimitMb?: number;
  prelude?: PreludeCache;
}

/**
 * Evaluates a JavaScript chain-types file as SubQuery does (`require(file).default`), in a sandbox
 * like the mappings' one: an isolate with the same globals and built-in modules (those SubQuery's
 * sandbox for chain types allows too), a heap limit and a time limit, and a `require` that resolves
 * other modules from the project folder, as Node resolves them, but reads only files inside the
 * project (its `node_modules` included) and only CommonJS and JSON. Returns the value as plain data
 * (with the paths where it held functions) and every module read, which the mappings' sandbox
 * evaluates again (infra/sandbox/isolate/chain-types.ts).
 */
export async function evaluateChainTypes(options: EvaluateChainTypesOptions): Promise<LoadedChainTypes> {
  const { root, file } = options;
  const readModule = createModuleReader(root);
  const entry = moduleAt(file, root);
  const bridge: HostBridge = {
    call: () => Promise.reject(new Error('chain types cannot use the store or the chain: they are loaded before indexing starts')),
    callSync: (op, args) => (op === 'chainTypesModule' ? readModule(args[0] as string, args[1] as string) : hostSyncCall(op, args)),
    log: () => undefined,
    applyWrites: async () => undefined,
  };
  const runtime = createIsolatedRuntime({
    code: '',
    fileName: file,
    memoryLimitMb: options.memoryLimitMb ?? 256,
    loadTimeoutMs: options.timeoutMs ?? 10_000,
    install: {
      queryLimit: 100,
      readCacheSize: 0,
      chainId: '',
      // no family's `api` or library: chain types see only the globals and modules every sandbox has
      family: defaultSandboxFamily,
      unsafe: false,
      logLevel: 'silent',
      chainTypes: { file, entry: entry.path, modules: { [entry.path]: entry }, resolutions: {}, readFromHost: true },
    },
    prelude: options.prelude ?? createPreludeCache(),
    bridge,
  });
  try {
    const load = await runtime.ready();
    if (!load.ok) throw new Error(load.error.message);
    const outcome = await runtime.chainTypes();
    if (outcome.ok) return outcome.loaded;
    const { stack, location } = mapStack(outcome.error.stack ?? '', file, sourceMapOf(file));
    const at =
      location ??
      stack
        .split('\n')
        .find((l) => l.includes(root))
        ?.trim();
    throw new IdxError(
      'CHAIN_TYPES_INVALID',
      `${options.label ?? relative(root, file)} failed to load: ${outcome.error.message}${at === undefined ? '' : `\n    at ${at.replace(/^at /, '')}`}`,
    );
  } finally {
    runtime.dispose();
  }
}

/**
 * `require(specifier)` from a module of the project's chain types: a built-in module the sandbox has,
 * or a file of the project. Anything else is refused with the reason.
 */
function createModuleReader(root: string) {
  const inside = insideProject(root);
  return (specifier: string, from: string): ChainTypesModule | { builtin: string } => {
    const who = `${relative(root, from)} requires "${specifier}"`;
    if (isBuiltin(specifier)) {
      const name = specifier.replace(/^node:/, '');
      if (!SANDBOX_MODULES.includes(name.split('/')[0]!))
        throw new Error(`${who}: chain types, as mappings, may require only Node's ${SANDBOX_MODULES_TEXT} (SubQuery's sandbox for them allows no other)`);
      return { builtin: name };
    }
    let path: string;
    try {
      path = createRequire(from).resolve(specifier);
    } catch (err) {
      throw new Error(`${who}, which cannot be found from ${relative(root, dirname(from)) || '.'}: ${(err as Error).message.split('\n')[0]}`);
    }
    if (!inside(path))
      throw new Error(`${who}, which is ${path}, outside the project folder ${root}: chain types may require only the project's files and its node_modules`);
    return moduleAt(path, root, who);
  };
}

/** A module file's text and kind; ES modules and other kinds of files are refused. */
function moduleAt(path: string, root: string, who = relative(root, path)): ChainTypesModule {
  const ext = extname(path);
  if (ext === '.json') return { path, kind: 'json', text: readFileSync(path, 'utf8') };
  if (ext !== '.js' && ext !== '.cjs')
    throw new Error(`${who}: ${relative(root, path)} is not JavaScript (.js, .cjs) or JSON, which is all chain types can load`);
  if (ext === '.js' && packageType(path, root) === 'module')
    throw new Error(
      `${who}: ${relative(root, path)} is an ES module (its package.json says "type": "module"), and chain types are loaded as CommonJS, as SubQuery loads them`,
    );
  return { path, kind: 'js', text: readFileSync(path, 'utf8') };
}

/** The `type` of the package a file belongs to (the nearest package.json up to the project folder). */
function packageType(path: string, root: string): string | undefined {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        return (JSON.parse(readFileSync(pkg, 'utf8')) as { type?: string }).type;
      } catch {
        return undefined;
      }
    }
    if (dir === root || dirname(dir) === dir) return undefined;
  }
}

/** Inside the project folder, or its node_modules wherever that links to (as a workspace or pnpm lays it out). */
function insideProject(root: string): (path: string) => boolean {
  const real = (p: string) => (existsSync(p) ? realpathSync(p) : p);
  const homes = [real(root), real(join(root, 'node_modules'))];
  return (path: string) => {
    const at = real(path);
    return homes.some((home) => at === home || at.startsWith(home + sep));
  };
}

/** The source map `idx build` writes beside the bundle, so an error points at src/chaintypes.ts. */
function sourceMapOf(file: string): SourceMap | undefined {
  try {
    return new SourceMap(JSON.parse(readFileSync(`${file}.map`, 'utf8')) as ConstructorParameters<typeof SourceMap>[0]);
  } catch {
    return undefined;
  }
}

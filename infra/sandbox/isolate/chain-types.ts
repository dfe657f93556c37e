import type { ChainTypesModule, ChainTypesSource, LoadedChainTypes } from './wire.ts';

/**
 * The project's chain types (`network.chaintypes`) inside the sandbox. A JSON or YAML file arrives as
 * its value; a JavaScript one (`dist/chaintypes.js`, which `idx build` bundles) is evaluated here as
 * SubQuery evaluates it (`require(file).default`), so that what cannot be data, such as a bundle's
 * `hasher` function, is the project's own function, in the sandbox. Its `require` answers the
 * sandbox's built-in modules, and other modules are the files the host read from the project (its
 * `node_modules` included) when the node first loaded the chain types: then through `readModule`, in
 * the mappings' sandbox from that record, so the same code gets the same modules and reads no files.
 */
export function createChainTypes(
  source: ChainTypesSource,
  builtinRequire: (name: string) => unknown,
  readModule?: (specifier: string, from: string) => ChainTypesModule | { builtin: string },
) {
  let evaluated: { value: unknown } | { error: unknown } | undefined;
  const modules: Record<string, ChainTypesModule> = { ...('modules' in source ? source.modules : {}) };
  const resolutions: Record<string, string> = { ...('resolutions' in source ? source.resolutions : {}) };
  const exportsOf = new Map<string, { exports: unknown }>();

  const resolve = (specifier: string, from: string): ChainTypesModule | { builtin: string } => {
    const key = `${from}\n${specifier}`;
    const known = resolutions[key];
    if (known !== undefined) return known.startsWith('builtin:') ? { builtin: known.slice(8) } : modules[known]!;
    if (readModule === undefined)
      throw new Error(
        `${from} requires "${specifier}", which it did not require when the node loaded the chain types: its result must not depend on when it runs`,
      );
    const got = readModule(specifier, from);
    if ('builtin' in got) resolutions[key] = `builtin:${got.builtin}`;
    else {
      modules[got.path] = got;
      resolutions[key] = got.path;
    }
    return got;
  };

  const load = (module: ChainTypesModule): unknown => {
    const cached = exportsOf.get(module.path);
    if (cached !== undefined) return cached.exports;
    const record = { exports: {} as unknown };
    exportsOf.set(module.path, record);
    if (module.kind === 'json') {
      record.exports = JSON.parse(module.text);
      return record.exports;
    }
    const dir = module.path.slice(0, module.path.lastIndexOf('/')) || '/';
    const require = (specifier: string): unknown => {
      if (typeof specifier !== 'string') throw new TypeError('require: the module name must be a string');
      const target = resolve(specifier, module.path);
      return 'builtin' in target ? builtinRequire(target.builtin) : load(target);
    };
    // indirect eval: the module's code sees the sandbox's globals, not this function's scope
    const factory = (0, eval)(`(function (exports, require, module, __filename, __dirname) {${module.text}\n})\n//# sourceURL=${module.path}`) as (
      ...args: unknown[]
    ) => void;
    factory.call(record.exports, record.exports, require, record, module.path, dir);
    return record.exports;
  };

  /** The chain types, as `@polkadot/api` takes them (functions included); evaluated once. */
  const value = (): unknown => {
    if (evaluated === undefined) {
      try {
        evaluated = { value: 'value' in source ? source.value : (load(modules[source.entry]!) as { default?: unknown } | undefined)?.default };
      } catch (error) {
        evaluated = { error };
      }
    }
    if ('error' in evaluated) throw evaluated.error;
    return evaluated.value;
  };

  return {
    value,
    /** For the host: the value as plain data (functions left out, their paths listed) and the modules read to make it. */
    loaded(): LoadedChainTypes {
      const functions: string[] = [];
      const plain = toPlain(value(), '', functions, new Set());
      return { value: plain, functions, modules, resolutions };
    },
  };
}

/** A copy that crosses to the host: plain objects, arrays and primitives; functions are left out and listed by path. */
function toPlain(v: unknown, path: string, functions: string[], seen: Set<unknown>): unknown {
  if (typeof v === 'function') {
    functions.push(path);
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return typeof v === 'symbol' ? undefined : v;
  if (seen.has(v)) throw new Error(`the chain types refer to themselves at ${path || 'the top'}: they must be a tree of plain data`);
  seen.add(v);
  try {
    if (Array.isArray(v)) return v.map((item, i) => toPlain(item, `${path}[${i}]`, functions, seen));
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      const copied = toPlain(item, path === '' ? k : `${path}.${k}`, functions, seen);
      if (copied !== undefined) out[k] = copied;
    }
    return out;
  } finally {
    seen.delete(v);
  }
}

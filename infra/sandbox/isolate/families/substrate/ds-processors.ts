import { baseHandlerKindOf, type ProcessorDataSource, type ProcessorShape } from '../../../../../domain/chains/substrate/custom-data-source.ts';

/**
 * SubQuery's custom data source processors (`@subql/frontier-evm-processor`, `@subql/substrate-wasm-processor`, …)
 * inside the sandbox, run as SubQuery's node runs them: the processor file's default export, its
 * `validate`/`filterValidator` at start, then per matched item `dsFilterProcessor`, `filterProcessor`
 * and `transformer`, whose results go to the mapping's handler one after another.
 */

type Rec = Record<string, unknown>;

/** A processor's handler processor, spec version 1.0.0 (object parameters) or the older positional one. */
interface HandlerProcessor {
  specVersion?: string;
  baseHandlerKind: string;
  baseFilter: unknown;
  filterValidator?(filter: unknown): void;
  filterProcessor(...args: unknown[]): boolean;
  transformer(...args: unknown[]): Promise<unknown>;
}

interface Plugin {
  kind: string;
  validate?(ds: unknown, assets: Record<string, string>): void;
  dsFilterProcessor?(ds: unknown, api: unknown): boolean;
  handlerProcessors: Record<string, HandlerProcessor>;
}

type Factory = (module: { exports: unknown }, exports: unknown, require: (name: string) => unknown) => void;

/** Evaluates each processor file (CommonJS, as its package builds it) and reads what the node needs to match its handlers. */
export function loadProcessors(codes: Record<string, string>, require: (name: string) => unknown) {
  const plugins = new Map<string, Plugin>();
  const shapes: Record<string, ProcessorShape> = {};
  for (const [file, code] of Object.entries(codes)) {
    const module = { exports: {} as unknown };
    // the processor's own file name in its stack traces
    const factory = new Function('module', 'exports', 'require', `${code}\n//# sourceURL=${file}`) as Factory;
    factory(module, module.exports, require);
    // SubQuery's node takes `require(file).default`
    const plugin = (module.exports as Rec | null)?.default as Plugin | undefined;
    if (plugin === undefined || plugin === null || typeof plugin !== 'object')
      throw new Error(`the data source processor ${file} has no default export (a processor object with kind and handlerProcessors)`);
    if (typeof plugin.kind !== 'string' || typeof plugin.handlerProcessors !== 'object' || plugin.handlerProcessors === null)
      throw new Error(`the data source processor ${file} exports no kind and handlerProcessors: it is not a SubQuery data source processor`);
    const handlers: ProcessorShape['handlers'] = {};
    for (const [kind, hp] of Object.entries(plugin.handlerProcessors)) {
      const base = baseHandlerKindOf(hp.baseHandlerKind);
      if (base === undefined)
        throw new Error(`the data source processor ${file}: ${kind} rides on ${String(hp.baseHandlerKind)}, which is not a Substrate handler kind`);
      // SubQuery's node reads `.length` and `.find` of the base filter: anything but a list matches everything there
      const filters = Array.isArray(hp.baseFilter) ? (hp.baseFilter as Rec[]).map((f) => ({ ...f })) : [];
      handlers[kind] = { base, filters };
    }
    plugins.set(file, plugin);
    shapes[file] = { kind: plugin.kind, handlers };
  }
  return { plugins, shapes };
}

/** The data source as processors read it: `assets` a Map. */
export const dataSourceObject = (ds: ProcessorDataSource): Rec => ({
  // a copy (the isolate has no structuredClone): a processor may change what it is given
  ...(JSON.parse(JSON.stringify(ds)) as Rec),
  assets: new Map(ds.assets.map(([n, a]) => [n, { ...a }])),
});

/** The assets' contents by name, as SubQuery's node hands them to `validate` and `transformer`. */
export const assetsOf = (ds: ProcessorDataSource, contents: Record<string, string>): Record<string, string> =>
  Object.fromEntries(ds.assets.flatMap(([name, { file }]) => (contents[file] === undefined ? [] : [[name, contents[file]!]])));

/** SubQuery's checks of a custom data source at start (its `validateCustomDs`): problems with their field paths. */
export function checkCustomSource(plugins: Map<string, Plugin>, path: string, ds: ProcessorDataSource, contents: Record<string, string>) {
  const problems: { path: string; message: string }[] = [];
  const plugin = plugins.get(ds.processor.file);
  if (plugin === undefined) return [{ path: `${path}.processor.file`, message: `${ds.processor.file} is not loaded` }];
  if (ds.kind !== plugin.kind) problems.push({ path: `${path}.kind`, message: `is ${ds.kind}, but its processor is for ${plugin.kind}` });
  ds.mapping.handlers.forEach((h, i) => {
    const hp = plugin.handlerProcessors[h.kind];
    const at = `${path}.mapping.handlers[${i}]`;
    if (hp === undefined)
      problems.push({ path: `${at}.kind`, message: `${h.kind} is not one of the processor's ${Object.keys(plugin.handlerProcessors).join(', ')}` });
    else attempt(problems, `${at}.filter`, () => hp.filterValidator?.(h.filter));
  });
  if (problems.length === 0) attempt(problems, path, () => plugin.validate?.(dataSourceObject(ds), assetsOf(ds, contents)));
  return problems;
}

function attempt(problems: { path: string; message: string }[], path: string, check: () => void) {
  try {
    check();
  } catch (err) {
    problems.push({ path, message: `the processor refused it: ${(err as Error)?.message ?? String(err)}` });
  }
}

/**
 * Runs one matched item through its processor and the mapping's handler: skipped when the processor's
 * `dsFilterProcessor` or `filterProcessor` says no, else the handler runs once per transformed value.
 */
export function createProcessorRunner(plugins: Map<string, Plugin>, contents: Record<string, string>, api: () => unknown) {
  const objects = new WeakMap<ProcessorDataSource, Rec>();
  return async (ds: ProcessorDataSource, position: number, input: unknown, handler: (value: unknown) => unknown): Promise<void> => {
    const plugin = plugins.get(ds.processor.file)!;
    const { kind, filter } = ds.mapping.handlers[position]!;
    const hp = plugin.handlerProcessors[kind]!;
    let dsObject = objects.get(ds);
    if (dsObject === undefined) objects.set(ds, (dsObject = dataSourceObject(ds)));
    const v1 = hp.specVersion === '1.0.0';
    let values: unknown;
    try {
      if (plugin.dsFilterProcessor !== undefined && !plugin.dsFilterProcessor(dsObject, api())) return;
      // processors from before spec version 1.0.0 take positional parameters and transform into one value
      const passes = v1 ? hp.filterProcessor({ filter, input, ds: dsObject }) : hp.filterProcessor(filter, input, dsObject);
      if (!passes) return;
      const assets = assetsOf(ds, contents);
      values = v1 ? await hp.transformer({ input, ds: dsObject, filter, api: api(), assets }) : [await hp.transformer(input, dsObject, api(), assets)];
    } catch (err) {
      // named for the processor: the mapping's handler never ran
      if (err instanceof Error) err.message = `the data source processor's ${kind} (${ds.processor.file}) failed: ${err.message}`;
      throw err;
    }
    if (!Array.isArray(values)) throw new Error(`the data source processor's ${kind} transformer returned ${typeof values}, not a list`);
    // in order, one after another: a value may depend on the writes of the one before
    for (const value of values) await handler(value);
  };
}

import type { ChainFamilyName } from '../../domain/chains/families.ts';
import type { TestCase } from '../../domain/testing/range-test.ts';
import type { MappingHost } from '../../domain/mapping/mapping-host.ts';
import { createHostBridge, WriteFailed, type HostBridge } from './create-host-bridge.ts';
import { createIsolatedRuntime } from './create-isolated-runtime.ts';
import { createNodeVmRuntime } from './create-node-vm-runtime.ts';
import { createPreludeCache, type PreludeCache } from './create-prelude-cache.ts';
import { defaultSandboxFamily, sandboxFamilies, type FamilySandboxMethods, type LoadedProcessor } from './families/registry.ts';
import type { SandboxLimits } from './isolate/limits.ts';
import type { AccessEntry, ChainTypesSource, CustomSourcesInstall, InstallOptions } from './isolate/wire.ts';
import type { MappingRuntime } from './mapping-runtime.ts';
import { readSourceMap } from './read-source-map.ts';
import { createRunState, readyRuntime, runInRuntime, type RunState, type RuntimeRun } from './run-in-runtime.ts';
import type { SandboxCore, SandboxFamily } from './sandbox-family.ts';
import { SandboxError } from './sandbox-error.ts';

export interface SandboxOptions {
  /** the project's built `dist/index.js`: one CommonJS bundle */
  code: string;
  /** its `dist/index.js.map` (JSON text or parsed), to point errors at the project's sources */
  sourceMap?: string | object;
  /** the bundle's path; stack frames name it */
  fileName: string;
  /** --unsafe: any `require`, `fetch`, `unsafeApi`; runs in node:vm instead of an isolate */
  unsafe?: boolean;
  /** --timeout: milliseconds for all handlers of one block (default 10000) */
  timeoutMs?: number;
  /** the isolate's heap limit (default 256; not enforced with --unsafe) */
  memoryLimitMb?: number;
  /** --query-limit: the largest `limit` a store read may ask for, and the default one (default 100) */
  queryLimit?: number;
  /** the node's side: the store, the log, and the chain reads of the family's host (domain/chains/<family>/) */
  host: MappingHost;
  /**
   * Entities the sandbox remembers from the mapping's own reads and writes so a repeated
   * `store.get` needs no host round trip (default 100,000, and about 16 MB of data: isolate/create-read-cache.ts; 0 = off). Correct while this sandbox is
   * the only writer of the project's entities; turn it off when another process writes them too
   * (e.g. --multi-chain). It is cleared when a block fails or a height is run again (rewinds).
   */
  readCacheSize?: number;
  /**
   * Entity types whose table held no row when the node started and which only this sandbox writes (never with
   * another writer, e.g. --multi-chain): a `get` of an id never written to them is answered inside, as absent.
   */
  freshEntities?: readonly string[];
  /** bounds on what a mapping can make the host hold (log text, store writes, call arguments); defaults in isolate/limits.ts */
  limits?: Partial<SandboxLimits>;
  /** share one per process: the runtime bundle is built once per cache */
  prelude?: PreludeCache;
  /** the chain family (default the EVM's): what `api` is, how blocks are handed over, the library it loads (families/registry.ts) */
  family?: ChainFamilyName;
  /** custom data sources: their processors (loaded with the project) and assets, and the manifest's sources to check */
  custom?: CustomSourcesInstall;
  /** the project's chain types, as the node loaded them (infra/chains/<family>/load-chain-types.ts) */
  chainTypes?: ChainTypesSource;
  /** told, after a block's writes are applied, which entity types a handler read (1) or wrote (2) for the first time */
  onAccess?: (entries: readonly AccessEntry[]) => void;
}

/**
 * A project's mappings, loaded: the handlers they export, and the methods of the sandbox's family
 * that run its blocks (families/<family>/; the type lists every family's, the object has its own).
 */
export type Sandbox = SandboxBase & FamilySandboxMethods;

export interface SandboxBase {
  /** names of the functions the bundle exports (the handlers a manifest may name) */
  readonly handlers: readonly string[];
  /** the custom data source processors loaded (`custom`), by file */
  readonly processors: Readonly<Record<string, LoadedProcessor>>;
  /** what the processors refused of the manifest's custom data sources, by field path */
  readonly customProblems: readonly { path: string; message: string }[];
  /** the `subqlTest`s and `subqlRangeTest`s a test bundle registered while it loaded (`@subql/testing`); none for a project's mappings */
  readonly tests: readonly TestCase[];
  /** the host wrote entities the mappings did not (a test's set-up): from the next block no id is known absent inside */
  forgetKnownIds(): void;
  dispose(): void;
}

const DEFAULTS = { timeoutMs: 10_000, memoryLimitMb: 256, queryLimit: 100, readCacheSize: 100_000 };

/** Loads a project's bundle into a fresh sandbox; load errors (syntax, a forbidden `require`) reject here. */
export async function createSandbox(options: SandboxOptions): Promise<Sandbox> {
  const family: SandboxFamily = sandboxFamilies[options.family ?? defaultSandboxFamily];
  const sourceMap = readSourceMap(options.sourceMap, options.fileName);
  const state = createRunState();
  const core: SandboxCore = {
    async run(height, calls, makePayload, running) {
      const { error, ran } = await runInRuntime(r, [{ height, calls, makePayload, running }]);
      if (error !== undefined) throw error;
      return ran === undefined ? {} : { ran };
    },
    runMany: (items, budgetMs) => runInRuntime(r, items, budgetMs),
    running: () => state.running,
    async prepare(key, method) {
      if (state.disposed) throw new SandboxError('SANDBOX_DISPOSED', `${method} was called on a disposed sandbox`);
      await readyRuntime(r);
      await r.runtime.prepare(key);
    },
  };
  const parts = family.create(options.host, core);
  const bridge = trackWriteFailures(
    createHostBridge(options.host, parts.ops, (index) => state.enterBlock?.(index)),
    state,
  );
  const r: RuntimeRun = {
    runtime: runtimeOf(options, family, bridge),
    bridge,
    fileName: options.fileName,
    sourceMap,
    timeoutMs: options.timeoutMs ?? DEFAULTS.timeoutMs,
    memoryLimitMb: options.memoryLimitMb ?? DEFAULTS.memoryLimitMb,
    state,
    ...(options.onAccess !== undefined && { onAccess: options.onAccess }),
  };
  const loaded = await readyRuntime(r);
  return {
    handlers: loaded.handlers,
    processors: (loaded.processors ?? {}) as Record<string, LoadedProcessor>,
    customProblems: loaded.customProblems ?? [],
    tests: loaded.tests ?? [],
    ...(parts.methods as FamilySandboxMethods),
    forgetKnownIds() {
      state.forgetKnownIds = true;
    },
    dispose() {
      if (state.disposed) return;
      state.disposed = true;
      r.runtime.dispose();
    },
  };
}

/** The isolate, or with --unsafe the node:vm context, the mappings run in. */
function runtimeOf(options: SandboxOptions, family: SandboxFamily, bridge: HostBridge): MappingRuntime {
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const install: Omit<InstallOptions, 'progress'> = {
    queryLimit: options.queryLimit ?? DEFAULTS.queryLimit,
    readCacheSize: options.readCacheSize ?? DEFAULTS.readCacheSize,
    ...(options.freshEntities !== undefined && options.freshEntities.length > 0 && { freshEntities: [...options.freshEntities] }),
    chainId: options.host.chainId,
    family: family.name,
    unsafe: options.unsafe === true,
    logLevel: options.host.logLevel ?? 'trace',
    limits: { ...options.limits },
    ...(options.custom !== undefined && { custom: options.custom }),
    ...(options.chainTypes !== undefined && { chainTypes: options.chainTypes }),
  };
  const common = {
    code: options.code,
    fileName: options.fileName,
    install,
    prelude: options.prelude ?? createPreludeCache(),
    ...(family.library !== undefined && { library: family.library }),
    bridge,
  };
  return options.unsafe
    ? createNodeVmRuntime({ ...common, timeoutMs })
    : createIsolatedRuntime({ ...common, memoryLimitMb: options.memoryLimitMb ?? DEFAULTS.memoryLimitMb, loadTimeoutMs: timeoutMs });
}

/**
 * A write refused while crossing with a later call surfaces in whichever handler made that call,
 * which may catch it: the block fails with it anyway (run-in-runtime.ts), named for the handler that wrote.
 */
function trackWriteFailures(hostBridge: HostBridge, state: Pick<RunState, 'writeFailure' | 'serving'>): HostBridge {
  return {
    ...hostBridge,
    call: async (op, args, writes) => {
      state.serving?.();
      try {
        return await hostBridge.call(op, args, writes);
      } catch (err) {
        if (err instanceof WriteFailed) state.writeFailure ??= err;
        throw err;
      }
    },
  };
}

import { Buffer } from 'buffer';
import { createCrypto } from './builtins/crypto.ts';
import { createUrl, type UrlBridge } from './builtins/url.ts';
import { TextDecoder, TextEncoder } from './builtins/text-codec.ts';
import { util } from './builtins/util.ts';
import { buildChainObjects, setArgs } from './chain-objects.ts';
import { createEthProvider } from './eth-provider.ts';
import { buildSubstrateObjects, createSubstrateApi, createSubstrateRuntimes, type SubstrateLib } from './substrate-objects.ts';
import { createChainTypes } from './chain-types.ts';
import { createReadCache } from './create-read-cache.ts';
import { checkCustomSource, createProcessorRunner, loadProcessors } from './ds-processors.ts';
import { createStore, type Write } from './create-store.ts';
import { createBlockEntropy, installDeterministicTime } from './deterministic.ts';
import { createLogBudget, createWriteBudget, DEFAULT_LIMITS, formatSize, measure, truncateText } from './limits.ts';
import { createSandboxLogger } from './sandbox-logger.ts';
import { createSandboxRequire, sandboxBuiltins } from './sandbox-modules.ts';
import { timerGlobals, withTimers, type TimerBridge } from './timers.ts';
import type {
  BlockExtrasWire,
  BlockOutcome,
  BlockPayload,
  Bridge,
  HostOp,
  InstallOptions,
  LoadedChainTypes,
  LoadOutcome,
  ThrownError,
  UnsafeExtras,
  WireRecord,
  WriteOp,
} from './wire.ts';

/**
 * The mapping runtime inside the sandbox, bundled once per process and run first in every
 * isolate (or, with --unsafe, node:vm context). `install` sets the globals mappings use and
 * returns the two entry points the host calls: `load` (evaluate the project bundle) and
 * `runBlock` (run one block's handlers in order).
 */

type Factory = (this: unknown, module: { exports: unknown }, exports: unknown, require: (name: string) => unknown) => void;

export function install(bridge: Bridge & TimerBridge & UrlBridge, options: InstallOptions, unsafe?: UnsafeExtras, substrateLib?: SubstrateLib) {
  const g = globalThis as unknown as Record<string, unknown>;
  const progress = new Int32Array(options.progress);
  let pending: WriteOp[] = [];
  let current = -1;
  let height = 0;
  let handlers: Record<string, unknown> = {};
  let lastHeight = -1;
  const readCache = createReadCache(options.readCacheSize);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const logBudget = createLogBudget(limits);
  const writeBudget = createWriteBudget(limits);
  const entropy = createBlockEntropy();

  const call = (op: HostOp, args: unknown[]): Promise<unknown> => {
    // `get` (the hot path) carries an entity name and an id only
    const size = op === 'get' ? 0 : measure(args);
    if (size > limits.callBytes) {
      throw new RangeError(
        `${op === 'ethCall' ? 'api.call' : `a ${op} call`}: its arguments are about ${formatSize(size)}, above the sandbox's limit of ${formatSize(limits.callBytes)} per call`,
      );
    }
    const writes = pending;
    pending = [];
    return bridge.call(op, args, writes);
  };
  const queue = (write: Write): void => {
    pending.push([current, ...write] as WriteOp);
  };

  // outside --unsafe, random bytes come from the block's seeded generator, as Math.random does
  const crypto = createCrypto(
    options.unsafe
      ? bridge
      : {
          callSync: (op, args) => (op === 'randomBytes' ? entropy.bytes(args[0] as number) : op === 'randomUUID' ? entropy.uuid() : bridge.callSync(op, args)),
        },
  );
  const url = createUrl(bridge);
  // the modules of the sandbox, --unsafe or not: chain types get only these, as in SubQuery's sandbox for them
  const sandboxRequire = createSandboxRequire(sandboxBuiltins(crypto, url));
  const require = (name: string): unknown => (unsafe !== undefined && typeof name === 'string' ? unsafe.require(name) : sandboxRequire(name));
  const chainTypesSource = options.chainTypes;
  const chainTypes =
    chainTypesSource === undefined
      ? undefined
      : createChainTypes(
          chainTypesSource,
          sandboxRequire,
          'readFromHost' in chainTypesSource && chainTypesSource.readFromHost === true
            ? (specifier, from) => bridge.callSync('chainTypesModule', [specifier, from]) as never
            : undefined,
        );

  const { logger, console, send } = createSandboxLogger(
    bridge,
    limits,
    (chars) => logBudget.admit(chars),
    options.logLevel,
    () => height,
  );

  const cacheMap = new Map<unknown, unknown>();
  const cache = {
    get: async (key: unknown) => cacheMap.get(key),
    set: async (key: unknown, value: unknown) => {
      cacheMap.set(key, value);
    },
  };

  // Substrate: the block running, for `api` reads at it; runtimes decode with the metadata the host hands over once per spec version
  let substrateAt: { hash: string; height: number; specVersion: number } | undefined;
  const substrate =
    options.family === 'substrate' && substrateLib !== undefined
      ? (() => {
          const chainTypesValue = () => {
            try {
              return chainTypes?.value();
            } catch (err) {
              throw new Error(`the chain types (${chainTypesSource!.file}) failed to load in the sandbox: ${describe(err).message}`);
            }
          };
          const runtimes = createSubstrateRuntimes(substrateLib, chainTypesValue, async (v) => (await call('substrateRuntime', [v])) as never);
          const api = createSubstrateApi(
            substrateLib,
            runtimes,
            () => substrateAt,
            (method, params) => call('request', [method, params]),
          );
          return { runtimes, api };
        })()
      : undefined;
  const globals: Record<string, unknown> = {
    store: createStore(call, queue, options.queryLimit, readCache, writeBudget),
    logger,
    console,
    api: substrate?.api ?? createEthProvider(call, options.chainId, () => height),
    chainId: options.chainId,
    createDynamicDatasource: async (template: string, args: Record<string, unknown>) => {
      if (typeof template !== 'string') throw new TypeError('createDynamicDatasource: the template name must be a string');
      await call('createDynamicDatasource', [template, args ?? {}]);
    },
    cache,
    Buffer,
    TextEncoder,
    TextDecoder,
    URL: url.URL,
    URLSearchParams: url.URLSearchParams,
    ...timerGlobals,
    atob: (s: string) => Buffer.from(String(s), 'base64').toString('latin1'),
    btoa: (s: string) => Buffer.from(String(s), 'latin1').toString('base64'),
    global: g,
  };
  if (unsafe !== undefined) {
    globals.unsafeApi = substrate?.api ?? createEthProvider(call, options.chainId, undefined);
    Object.assign(globals, unsafe.globals);
  }
  for (const [k, v] of Object.entries(globals)) Object.defineProperty(g, k, { value: v, writable: true, configurable: true, enumerable: false });
  if (!options.unsafe) {
    installDeterministicTime(g, entropy);
    // as SubQuery's sandbox (wasm only with --unsafe): WebAssembly is a second runtime outside these bounds
    delete g.WebAssembly;
  }

  const fetchReceipt = async (hash: string) => (await call('receipt', [hash])) as WireRecord;
  const callBlocking = bridge.callBlocking;
  const loadExtras =
    callBlocking && ((want: { transactions: boolean; logs: boolean }) => callBlocking('blockExtras', [want.transactions, want.logs]) as BlockExtrasWire);

  // custom data sources' processors: loaded with the project, run for the calls that go through them
  let runThroughProcessor: ReturnType<typeof createProcessorRunner> | undefined;
  const loadCustom = (custom: NonNullable<InstallOptions['custom']>) => {
    const { plugins, shapes } = loadProcessors(custom.processors, require);
    runThroughProcessor = createProcessorRunner(plugins, custom.assets, () => g.api);
    const problems = custom.sources.flatMap(({ path, ds }) => checkCustomSource(plugins, path, ds, custom.assets));
    return { processors: shapes, customProblems: problems };
  };

  const idleError = (err: unknown) => send('error', `a timer callback failed between blocks: ${describe(err).message}`, undefined);
  return withTimers(
    bridge,
    { current: () => current, describe, idleError },
    {
      load(factory: Factory): LoadOutcome {
        const module = { exports: {} as unknown };
        try {
          factory.call(module.exports, module, module.exports, require);
        } catch (err) {
          return { ok: false, error: describe(err) };
        }
        handlers = (module.exports ?? {}) as Record<string, unknown>;
        const names = Object.keys(handlers).filter((k) => typeof handlers[k] === 'function');
        if (options.custom === undefined) return { ok: true, handlers: names };
        try {
          return { ok: true, handlers: names, ...loadCustom(options.custom) };
        } catch (err) {
          return { ok: false, error: describe(err) };
        }
      },

      /** The chain types evaluated, for the host (infra/sandbox/evaluate-chain-types.ts): their plain data and the modules they read. */
      chainTypes(): { ok: true; loaded: LoadedChainTypes } | { ok: false; error: ThrownError } {
        if (chainTypes === undefined) return { ok: false, error: { name: 'Error', message: 'this sandbox was given no chain types' } };
        try {
          return { ok: true, loaded: chainTypes.loaded() };
        } catch (err) {
          return { ok: false, error: describe(err) };
        }
      },

      /** Substrate: makes the runtime of a spec version (its registry, its decorated storage) before a block needs it. */
      async prepare(specVersion: number): Promise<void> {
        if (substrate === undefined) return;
        await substrate.runtimes.get(specVersion);
        substrate.runtimes.expanded(specVersion);
      },

      async runBlock(payload: BlockPayload): Promise<BlockOutcome> {
        height = payload.height;
        pending = [];
        // a height seen again means a rewind or a retry; `fresh`, that the host dropped the last block
        if (payload.fresh || payload.height <= lastHeight) readCache.clear();
        lastHeight = payload.height;
        logBudget.reset();
        writeBudget.reset();
        entropy.enter(Number(payload.block.timestamp), String(payload.block.hash));
        let chain: ReturnType<typeof buildChainObjects> | undefined;
        let substrateObjects: Awaited<ReturnType<typeof buildSubstrateObjects>> | undefined;
        if (payload.substrate !== undefined && substrate !== undefined) {
          try {
            substrateObjects = await buildSubstrateObjects(substrateLib!, substrate.runtimes, payload.substrate);
          } catch (err) {
            return { ok: false, call: 0, error: describe(err) };
          }
          substrateAt = { hash: payload.substrate.hash, height: payload.height, specVersion: payload.substrate.specVersion };
        } else chain = buildChainObjects(payload, fetchReceipt, loadExtras);
        for (let i = 0; i < payload.calls.length; i++) {
          const [name, kind, index, args, , custom] = payload.calls[i]!;
          current = i;
          progress[0] = i;
          // own properties only: a manifest naming `toString` must not reach Object.prototype
          const fn = Object.prototype.hasOwnProperty.call(handlers, name) ? handlers[name] : undefined;
          if (typeof fn !== 'function') {
            readCache.clear();
            return { ok: false, call: i, error: { name: 'HandlerNotFound', message: `the project's dist/index.js exports no function named "${name}"` } };
          }
          let arg: Record<string, unknown>;
          if (substrateObjects !== undefined) {
            arg = kind === 3 ? substrateObjects.extrinsic(index) : kind === 4 ? substrateObjects.event(index) : substrateObjects.block;
          } else if (kind === 0) {
            chain!.enterCall(i, false);
            arg = chain!.block;
          } else if (kind === 1) {
            chain!.enterCall(i, false);
            arg = chain!.logs[index]!;
            setArgs(arg, args);
          } else {
            chain!.enterCall(i, true);
            arg = chain!.transactions[index]!;
            setArgs(arg, args);
          }
          try {
            if (custom === undefined) await (fn as (a: unknown) => unknown)(arg);
            else await runThroughProcessor!(payload.substrate!.customSources![custom[0]]!, custom[1], arg, fn as (a: unknown) => unknown);
          } catch (err) {
            pending = [];
            readCache.clear();
            return { ok: false, call: i, error: describe(err) };
          }
        }
        substrateAt = undefined;
        const writes = pending;
        pending = [];
        return { ok: true, writes };
      },
    },
  );
}

function describe(err: unknown): ThrownError {
  // a thrown value is the mapping's: its getters, toString and proxy traps may throw in turn
  try {
    if (err instanceof Error || (err !== null && typeof err === 'object' && 'message' in err)) {
      const e = err as Error;
      const stack = e.stack;
      // the error is copied to the host and printed: as bounded as a log line
      return {
        name: truncateText(String(e.name ?? 'Error'), 200),
        message: truncateText(String(e.message), DEFAULT_LIMITS.logLineChars),
        stack: typeof stack === 'string' ? truncateText(stack, DEFAULT_LIMITS.logLineChars) : undefined,
      };
    }
    return { name: 'Error', message: truncateText(`a non-Error value was thrown: ${util.inspect(err)}`, DEFAULT_LIMITS.logLineChars) };
  } catch {
    let type = 'an object';
    try {
      type = typeof err === 'object' && err !== null ? 'an object' : typeof err;
    } catch {}
    return { name: 'Error', message: `${type} that cannot be described was thrown (reading its message failed)` };
  }
}

import { createKnownIds, SANDBOX_KNOWN_IDS_BUDGET } from '../../../domain/entities/known-ids.ts';
import { createAccessLog } from './access-log.ts';
import { createCrypto } from './builtins/crypto.ts';
import { createUrl, type UrlBridge } from './builtins/url.ts';
import { createBlockState, createHostCall, createShipWrites, createWriteQueue } from './block-state.ts';
import { createChainTypes } from './chain-types.ts';
import { createReadCache } from './create-read-cache.ts';
import { createStore } from './create-store.ts';
import { createBlockEntropy, installDeterministicTime } from './deterministic.ts';
import { collectTests } from './collect-tests.ts';
import { describeThrown } from './describe-thrown.ts';
import { isolateFamilies } from './families/registry.ts';
import { createLogBudget, createWriteBudget, DEFAULT_LIMITS } from './limits.ts';
import { runBlock, runBlocks, type PayloadCopy } from './run-block.ts';
import { createSandboxLogger } from './sandbox-logger.ts';
import { defineGlobals, sandboxGlobals } from './sandbox-globals.ts';
import { createSandboxRequire, sandboxBuiltins } from './sandbox-modules.ts';
import { withTimers, type TimerBridge } from './timers.ts';
import type { BlockOutcome, BlockPayload, Bridge, RunOutcome, InstallOptions, LoadedChainTypes, LoadOutcome, ThrownError, UnsafeExtras } from './wire.ts';

/**
 * The mapping runtime inside the sandbox, bundled once per process and run first in every
 * isolate (or, with --unsafe, node:vm context). `install` sets the globals mappings use and
 * returns the entry points the host calls: `load` (evaluate the project bundle) and `runBlocks`
 * (run blocks' handlers in order, one entry for many blocks). What `api` is and what handlers are given is the chain
 * family's (isolate/families/), with its library bundle when it has one.
 */

type Factory = (this: unknown, module: { exports: unknown }, exports: unknown, require: (name: string) => unknown) => void;

export function install(bridge: Bridge & TimerBridge & UrlBridge, options: InstallOptions, unsafe?: UnsafeExtras, library?: unknown) {
  const g = globalThis as unknown as Record<string, unknown>;
  const state = createBlockState();
  const readCache = createReadCache(options.readCacheSize);
  const known = createKnownIds(options.freshEntities ?? [], SANDBOX_KNOWN_IDS_BUDGET);
  const limits = { ...DEFAULT_LIMITS, ...options.limits };
  const logBudget = createLogBudget(limits);
  const writeBudget = createWriteBudget(limits);
  const entropy = createBlockEntropy();
  const definition = isolateFamilies[options.family];
  const call = createHostCall(state, bridge, limits, definition.callNames ?? {});
  const access = createAccessLog(() => state.handler);

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
  const chainTypes = chainTypesOf(options, sandboxRequire, bridge);

  const { logger, console, send } = createSandboxLogger(
    bridge,
    limits,
    (chars) => logBudget.admit(chars),
    options.logLevel,
    () => state.height,
  );
  const family = definition.install({
    call,
    callBlocking: bridge.callBlocking,
    chainId: options.chainId,
    height: () => state.height,
    loadHeight: () => state.firstHandledHeight ?? state.height,
    chainTypes: () => {
      try {
        return chainTypes?.value();
      } catch (err) {
        throw new Error(`the chain types (${options.chainTypes!.file}) failed to load in the sandbox: ${describeThrown(err).message}`);
      }
    },
    library,
  });
  const globals = sandboxGlobals({
    g,
    store: createStore(call, createWriteQueue(state), options.queryLimit, { cache: readCache, known }, writeBudget, access),
    logger,
    console,
    api: family.api,
    chainId: options.chainId,
    createDynamicDatasource: async (template: string, args: Record<string, unknown>) => {
      if (typeof template !== 'string') throw new TypeError('createDynamicDatasource: the template name must be a string');
      // known at once, by the call that asked (its handler may not await it: SubQuery's safe starter does not; the
      // block waits for the host's answer all the same, as for every host call, run-block.ts)
      state.createdDataSource = true;
      await call('createDynamicDatasource', [template, args ?? {}]);
    },
    url,
  });
  if (unsafe !== undefined) {
    globals.unsafeApi = family.unsafeApi();
    Object.assign(globals, unsafe.globals);
  }
  defineGlobals(g, globals);
  if (!options.unsafe) {
    installDeterministicTime(g, entropy);
    // as SubQuery's sandbox (wasm only with --unsafe): WebAssembly is a second runtime outside these bounds
    delete g.WebAssembly;
  }

  const ship = createShipWrites(state, bridge);
  // each block's own `api`, when the family makes one per block
  const enterApi = family.apiAt === undefined ? undefined : (height: number) => void (g.api = family.apiAt!(height));
  const runner = { state, family, enterApi, readCache, known, logBudget, writeBudget, entropy, access, progress: new Int32Array(options.progress), ship };
  const idleError = (err: unknown) => send('error', `a timer callback failed between blocks: ${describeThrown(err).message}`, undefined);
  const timed = withTimers(
    bridge,
    { current: () => state.current, describe: describeThrown, idleError },
    {
      load(factory: Factory): LoadOutcome {
        const module = { exports: {} as unknown };
        try {
          factory.call(module.exports, module, module.exports, require);
        } catch (err) {
          return { ok: false, error: describeThrown(err) };
        }
        const handlers = (state.handlers = (module.exports ?? {}) as Record<string, unknown>);
        const names = Object.keys(handlers).filter((k) => typeof handlers[k] === 'function');
        // a test bundle (dist/test/*.test.js) registers its subqlTests on the global as it loads
        let tests;
        try {
          tests = collectTests(g.subqlTests);
        } catch (err) {
          return { ok: false, error: describeThrown(err) };
        }
        if (tests !== undefined) return { ok: true, handlers: names, tests };
        if (options.custom === undefined || family.loadCustom === undefined) return { ok: true, handlers: names };
        try {
          return { ok: true, handlers: names, ...family.loadCustom(options.custom, require, () => g.api) };
        } catch (err) {
          return { ok: false, error: describeThrown(err) };
        }
      },

      /** The chain types evaluated, for the host (infra/sandbox/evaluate-chain-types.ts): their plain data and the modules they read. */
      chainTypes(): { ok: true; loaded: LoadedChainTypes } | { ok: false; error: ThrownError } {
        if (chainTypes === undefined) return { ok: false, error: { name: 'Error', message: 'this sandbox was given no chain types' } };
        try {
          return { ok: true, loaded: chainTypes.loaded() };
        } catch (err) {
          return { ok: false, error: describeThrown(err) };
        }
      },

      /** Makes what a block of a runtime version needs (its registry, its decorated storage) before one arrives. */
      async prepare(key: number): Promise<void> {
        await family.prepare?.(key);
      },

      runBlock: (payload: BlockPayload): Promise<BlockOutcome> => runBlock(runner, payload),
    },
  );
  return { ...timed, runBlocks: (payloads: (BlockPayload | PayloadCopy)[]): Promise<RunOutcome> => runBlocks(runner, payloads, timed.runBlock) };
}

/** The project's chain types, evaluated inside on first use; while the node first loads them, a module not handed over is asked of the host. */
function chainTypesOf(options: InstallOptions, sandboxRequire: (name: string) => unknown, bridge: Pick<Bridge, 'callSync'>) {
  const source = options.chainTypes;
  if (source === undefined) return undefined;
  return createChainTypes(
    source,
    sandboxRequire,
    'readFromHost' in source && source.readFromHost === true ? (specifier, from) => bridge.callSync('chainTypesModule', [specifier, from]) as never : undefined,
  );
}

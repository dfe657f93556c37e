import { createRequire } from 'node:module';
import { Script, createContext, type Context } from 'node:vm';
import type { PreludeCache } from './create-prelude-cache.ts';
import { createTimerHost } from './create-timer-host.ts';
import { createLiveSlot } from './live-slot.ts';
import { runtimeInstalls } from './runtime-install.ts';
import type { HostBridge } from './create-host-bridge.ts';
import type { BlockPayload, Bridge, InstallOptions, LoadOutcome, RunOutcome, UnsafeExtras } from './isolate/wire.ts';
import type { TimerBridge } from './isolate/timers.ts';
import type { UrlBridge } from './isolate/builtins/url.ts';
import { toThrownError, type MappingRuntime } from './mapping-runtime.ts';
import type { SandboxLibrary } from './sandbox-family.ts';
import { urlHostCall, type UrlOp } from './url-host.ts';
import { createRunProgress } from './run-progress.ts';
import { createShippedWrites, type ShippedWrites } from './shipped-writes.ts';

export interface NodeVmRuntimeOptions {
  code: string;
  fileName: string;
  /** bounds the bundle's top level and each block's synchronous start */
  timeoutMs: number;
  install: Omit<InstallOptions, 'progress'>;
  prelude: PreludeCache;
  /** the family's library bundle, loaded before the runtime installs */
  library?: SandboxLibrary;
  bridge: HostBridge;
}

interface Live {
  context: Context;
  /** the writes this context ships while it runs (Bridge.send) */
  shipped: ShippedWrites;
  runtime: { runBlocks(payloads: readonly BlockPayload[]): Promise<RunOutcome>; prepare(specVersion: number): Promise<void> };
  load: LoadOutcome;
  abandoned: boolean;
}

const RUN = new Script('__idx_runtime.runBlocks(__idx_payloads)', { filename: 'idx:sandbox-run.js' });

/**
 * --unsafe mappings in a node:vm context: real Node modules (`fs`, `http`, anything installed)
 * cannot be moved into an isolate, so unsafe mode runs where they live, as SubQuery's unsafe mode
 * does (a Node VM). The same runtime script sets the same globals, plus `unsafeApi` and `fetch`.
 * The price: no memory limit, and a handler stuck in a loop after its first `await` cannot be
 * interrupted (a never-settling await still times out).
 */
export function createNodeVmRuntime(options: NodeVmRuntimeOptions): MappingRuntime {
  const run = createRunProgress();
  const timers = createTimerHost();

  const installs = runtimeInstalls(options.install);
  const create = async (): Promise<Live> => {
    const state = { abandoned: false, shipped: createShippedWrites(options.bridge.applyWrites) } as Live;
    const guard = () => {
      if (state.abandoned) throw new Error('this block was abandoned after a timeout; its late calls are refused');
    };
    // copies keep the isolate's semantics: the host never shares objects with the mapping
    const bridge: Bridge & TimerBridge & UrlBridge = {
      call: async (op, args, writes, sent) => {
        guard();
        const copied = structuredClone(writes);
        await state.shipped.settled(sent);
        return structuredClone(await options.bridge.call(op, structuredClone(args), copied));
      },
      send: (seq, writes) => {
        guard();
        state.shipped.receive(seq, structuredClone(writes));
      },
      callSync: (op, args) => {
        guard();
        return options.bridge.callSync(op, structuredClone(args));
      },
      log: (level, message, fields) => {
        if (!state.abandoned) options.bridge.log(level, message, fields);
      },
      sleep: (id, ms) => {
        guard();
        return timers.sleep(id, ms);
      },
      cancelTimers: (ids) => timers.cancel(ids),
      url: (op, args) => structuredClone(urlHostCall(op as UrlOp, structuredClone(args))),
    };
    const unsafe: UnsafeExtras = {
      require: createRequire(options.fileName),
      // timers are the runtime's own (isolate/timers.ts), bounded by the block as in the isolate
      globals: { fetch, Buffer, URL, URLSearchParams, AbortController, queueMicrotask, process },
    };
    const context = createContext({});
    const prelude = new Script(await options.prelude.code(), { filename: 'idx:sandbox-runtime.js' }).runInContext(context) as {
      install(bridge: Bridge, options: InstallOptions, unsafe: UnsafeExtras, library?: unknown): Live['runtime'] & { load(factory: unknown): LoadOutcome };
    };
    const { library } = options;
    const libraryExports =
      library === undefined
        ? undefined
        : new Script(await options.prelude.library(library), { filename: `idx:sandbox-${library.name}.js` }).runInContext(context);
    const runtime = prelude.install(bridge, { ...installs(), progress: run.buffer }, unsafe, libraryExports);
    let load: LoadOutcome;
    try {
      const factory = new Script(`(function (module, exports, require) {\n${options.code}\n})`, { filename: options.fileName, lineOffset: -1 }).runInContext(
        context,
        {
          timeout: options.timeoutMs,
        },
      );
      context.__idx_load = () => runtime.load(factory);
      load = new Script('__idx_load()').runInContext(context, { timeout: options.timeoutMs }) as LoadOutcome;
      // a test bundle's entities as copies, as from the isolate: the context's Dates are not the host's (instanceof fails)
      if (load.ok && load.tests !== undefined) load = { ...load, tests: structuredClone(load.tests) };
    } catch (err) {
      load = { ok: false, error: toThrownError(err) };
    }
    context.__idx_runtime = runtime;
    Object.assign(state, { context, runtime, load });
    return state;
  };

  const live = createLiveSlot(create);

  return {
    async ready() {
      return (await live.ready()).load;
    },

    async runBlocks(payloads) {
      const state = live.current;
      if (state === undefined) throw new Error('runtime not ready');
      run.reset();
      state.shipped.nextRun();
      state.context.__idx_payloads = payloads;
      // a copy, as the isolate's outcome is: the context's Dates and typed arrays are not the host's (instanceof fails)
      const outcome = structuredClone(await RUN.runInContext(state.context, { timeout: options.timeoutMs })) as RunOutcome;
      try {
        // what the run shipped is applied before its outcome's writes (a batch refused: a WriteFailed naming its block)
        await state.shipped.settled(outcome.sent);
      } finally {
        // a timer callback failed the block while a handler still awaits: that handler must not reach the next block
        if (outcome.failed?.abandon === true && live.current === state) this.reset();
      }
      return outcome;
    },

    async prepare(specVersion) {
      const state = live.current;
      if (state === undefined) throw new Error('runtime not ready');
      await state.runtime.prepare(specVersion);
    },

    async quiesce() {
      await live.current?.shipped.close();
    },

    progress: run.progress,
    progressBlock: run.progressBlock,
    endRunAfterBlock: run.endRunAfterBlock,

    reset() {
      timers.dropAll();
      const state = live.drop();
      if (state !== undefined) state.abandoned = true;
    },

    dispose() {
      this.reset();
    },
  };
}

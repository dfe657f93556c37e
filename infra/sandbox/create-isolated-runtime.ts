import ivm from 'isolated-vm';
import type { PreludeCache } from './create-prelude-cache.ts';
import { createTimerHost } from './create-timer-host.ts';
import { createLiveSlot } from './live-slot.ts';
import type { HostBridge } from './create-host-bridge.ts';
import type { BlockPayload, InstallOptions, LoadedChainTypes, LoadOutcome, RunOutcome, ThrownError, WriteOp } from './isolate/wire.ts';
import { createShippedWrites, type ShippedWrites } from './shipped-writes.ts';
import { RuntimeDied, toThrownError, type MappingRuntime } from './mapping-runtime.ts';
import type { SandboxLibrary } from './sandbox-family.ts';
import { urlHostCall, type UrlOp } from './url-host.ts';
import { runtimeInstalls } from './runtime-install.ts';
import { createRunProgress } from './run-progress.ts';

export interface IsolatedRuntimeOptions {
  code: string;
  fileName: string;
  memoryLimitMb: number;
  /** bounds evaluating the bundle's top level */
  loadTimeoutMs: number;
  install: Omit<InstallOptions, 'progress'>;
  prelude: PreludeCache;
  /** the family's library bundle, loaded before the runtime installs */
  library?: SandboxLibrary;
  bridge: HostBridge;
}

interface Live {
  isolate: ivm.Isolate;
  /** the writes this isolate ships while it runs (Bridge.send) */
  shipped: ShippedWrites;
  sendRef: ivm.Reference<(seq: number, writes: WriteOp[]) => void>;
  runBlocks: ivm.Reference<(payloads: unknown) => Promise<RunOutcome>>;
  prepare: ivm.Reference<(specVersion: number) => Promise<void>>;
  chainTypes: ivm.Reference<() => ChainTypesOutcome>;
  load: LoadOutcome;
}

type ChainTypesOutcome = { ok: true; loaded: LoadedChainTypes } | { ok: false; error: ThrownError };

// Runs inside the isolate: turns the host's References into the plain functions the prelude takes,
// so no isolated-vm object is ever reachable from mapping code. Awaited host calls use
// applySyncPromise: the isolate's thread waits for the host's answer instead of being scheduled
// again, which measured ~30% more store reads per second; the call stays async to the mapping,
// and disposing the isolate (timeout) still cuts a wait short. It relies on the patched isolated-vm
// of vendor/isolated-vm: upstream's wakes the waiting thread after unlocking, which can hang.
const BOOTSTRAP = `
const [preludeExports, callRef, syncRef, logRef, options, sleepRef, cancelRef, urlRef, library, sendRef] = [$0, $1, $2, $3, $4, $5, $6, $7, $8, $9];
const bridge = {
  call: async (op, args, writes, sent) => callRef.applySyncPromise(undefined, [op, args, writes, sent], { arguments: { copy: true } }),
  send: (seq, writes) => sendRef.applyIgnored(undefined, [seq, writes], { arguments: { copy: true } }),
  callSync: (op, args) => syncRef.applySync(undefined, [op, args], { arguments: { copy: true }, result: { copy: true } }),
  callBlocking: (op, args) => callRef.applySyncPromise(undefined, [op, args, []], { arguments: { copy: true } }),
  log: (level, message, fields) => logRef.applyIgnored(undefined, [level, message, fields], { arguments: { copy: true } }),
  sleep: (id, ms) => sleepRef.apply(undefined, [id, ms], { result: { promise: true, copy: true } }),
  cancelTimers: (ids) => cancelRef.applyIgnored(undefined, [ids], { arguments: { copy: true } }),
  url: (op, args) => urlRef.applySync(undefined, [op, args], { arguments: { copy: true }, result: { copy: true } }),
};
return preludeExports.deref().install(bridge, options, undefined, library === undefined ? undefined : library.deref());
`;

/**
 * Mappings in an isolated-vm isolate: one per project, with a memory limit. Each block's data
 * enters with one ExternalCopy; store reads cross back per call; writes travel in batches. The
 * host never waits on the isolate's thread, so a stuck handler can be cut off by disposing it.
 */
export function createIsolatedRuntime(options: IsolatedRuntimeOptions): MappingRuntime & { chainTypes(): Promise<ChainTypesOutcome> } {
  const run = createRunProgress();
  const { bridge } = options;
  // applySyncPromise takes no result options, so the answer is handed back as a copy explicitly
  const callRef = new ivm.Reference(async (op: never, args: never, writes: never, sent: number | undefined) => {
    // the writes shipped before the call first: its own, and what it reads, come after them
    await live.current?.shipped.settled(sent ?? 0);
    const result = await bridge.call(op, args, writes);
    return result === undefined ? undefined : new ivm.ExternalCopy(result).copyInto({ release: true });
  });
  const syncRef = new ivm.Reference((op: never, args: never) => bridge.callSync(op, args));
  const logRef = new ivm.Reference((level: string, message: string, fields: Record<string, unknown> | undefined) => bridge.log(level, message, fields));
  // timers: the isolate's waits are host timers, all dropped with the isolate
  const timers = createTimerHost();
  const sleepRef = new ivm.Reference((id: number, ms: number) => timers.sleep(id, ms));
  const cancelRef = new ivm.Reference((ids: number[]) => timers.cancel(ids));
  const urlRef = new ivm.Reference((op: UrlOp, args: unknown[]) => urlHostCall(op, args));

  const installs = runtimeInstalls(options.install);
  const create = async (): Promise<Live> => {
    const isolate = new ivm.Isolate({ memoryLimit: options.memoryLimitMb });
    const shipped = createShippedWrites(bridge.applyWrites);
    const sendRef = new ivm.Reference((seq: number, writes: WriteOp[]) => shipped.receive(seq, writes));
    try {
      const context = await isolate.createContext();
      const { preludeExports, libraryExports } = await runSandboxCode(isolate, context, options);
      const installOptions = new ivm.ExternalCopy({ ...installs(), progress: run.buffer }).copyInto({ release: true });
      const runtime = await context.evalClosure(
        BOOTSTRAP,
        [preludeExports, callRef, syncRef, logRef, installOptions, sleepRef, cancelRef, urlRef, libraryExports, sendRef],
        {
          result: { reference: true },
        },
      );
      const load = await runtime.get('load', { reference: true });
      const runBlocks = await runtime.get('runBlocks', { reference: true });
      const prepare = await runtime.get('prepare', { reference: true });
      const chainTypes = await runtime.get('chainTypes', { reference: true });
      let outcome: LoadOutcome;
      try {
        // the line break keeps the bundle's own line numbers (lineOffset -1) for stack traces
        const user = await isolate.compileScript(`(function (module, exports, require) {\n${options.code}\n})`, { filename: options.fileName, lineOffset: -1 });
        const factory = await user.run(context, { reference: true });
        outcome = (await load.apply(undefined, [factory.derefInto()], { result: { copy: true }, timeout: options.loadTimeoutMs })) as LoadOutcome;
      } catch (err) {
        outcome = { ok: false, error: toThrownError(err) };
      }
      return { isolate, shipped, sendRef, runBlocks, prepare, chainTypes, load: outcome };
    } catch (err) {
      isolate.dispose();
      sendRef.release();
      throw err;
    }
  };

  const live = createLiveSlot(create);

  return {
    async ready() {
      return (await live.ready()).load;
    },

    async runBlocks(payloads: readonly BlockPayload[]) {
      const state = live.current;
      if (state === undefined) throw new Error('runtime not ready');
      run.reset();
      state.shipped.nextRun();
      let copies: ivm.ExternalCopy<BlockPayload>[] = [];
      try {
        // each block's payload waits outside, copied in when its block runs: a run's 50 payloads
        // copied in at once lived through the whole run, and each of the isolate's young-generation
        // collections copied them again
        copies = payloads.map((p) => new ivm.ExternalCopy(p));
        const outcome = await state.runBlocks.apply(undefined, [new ivm.ExternalCopy(copies).copyInto({ release: true })], {
          result: { promise: true, copy: true },
        });
        try {
          // what the run shipped is applied before its outcome's writes (a batch refused: a WriteFailed naming its block)
          await state.shipped.settled(outcome.sent);
        } finally {
          // a timer callback failed the block while a handler still awaits: that handler must not reach the next block
          if (outcome.failed?.abandon === true && live.current === state) this.reset();
        }
        return outcome;
      } catch (err) {
        if (state.isolate.isDisposed && live.current === state) {
          live.drop();
          await state.shipped.close();
          state.sendRef.release();
          const message = (err as Error)?.message ?? String(err);
          throw new RuntimeDied(/memory limit/i.test(message) ? 'memory-limit' : 'crashed', message);
        }
        throw err;
      } finally {
        // the payloads of blocks a run ended before are not waited for until a collection
        for (const c of copies) c.release();
      }
    },

    async prepare(specVersion) {
      const state = live.current;
      if (state === undefined) throw new Error('runtime not ready');
      await state.prepare.apply(undefined, [specVersion], { result: { promise: true } });
    },

    /** The chain types the isolate was installed with, evaluated (bounded as the bundle's top level is). */
    async chainTypes() {
      const state = live.current;
      if (state === undefined) throw new Error('runtime not ready');
      try {
        return (await state.chainTypes.apply(undefined, [], { result: { copy: true }, timeout: options.loadTimeoutMs })) as ChainTypesOutcome;
      } catch (err) {
        return { ok: false, error: toThrownError(err) };
      }
    },

    async quiesce() {
      await live.current?.shipped.close();
    },

    progress: run.progress,
    progressBlock: run.progressBlock,
    endRunAfterBlock: run.endRunAfterBlock,

    reset() {
      const state = live.drop();
      timers.dropAll();
      if (state !== undefined && !state.isolate.isDisposed) state.isolate.dispose();
      void state?.shipped.close();
      state?.sendRef.release();
    },

    dispose() {
      this.reset();
      callRef.release();
      syncRef.release();
      logRef.release();
      sleepRef.release();
      cancelRef.release();
      urlRef.release();
    },
  };
}

/** The sandbox's runtime bundle run in the isolate, and the family's library (a codec library that decodes blocks inside with the chain's metadata). */
async function runSandboxCode(
  isolate: ivm.Isolate,
  context: ivm.Context,
  { prelude, library }: Pick<IsolatedRuntimeOptions, 'prelude' | 'library'>,
): Promise<{ preludeExports: ivm.Reference; libraryExports: ivm.Reference | undefined }> {
  const preludeExports = await runCompiled(isolate, context, await prelude.code(), 'idx:sandbox-runtime.js', {
    get: () => prelude.v8Cache,
    set: (bytes) => (prelude.v8Cache = bytes),
  });
  const libraryExports =
    library === undefined
      ? undefined
      : await runCompiled(isolate, context, await prelude.library(library), `idx:sandbox-${library.name}.js`, {
          get: () => prelude.libraryV8Caches.get(library.name),
          set: (bytes) => prelude.libraryV8Caches.set(library.name, bytes),
        });
  return { preludeExports, libraryExports };
}

/**
 * Compiles a bundle in the isolate with V8's code cache (made by the first isolate, reused by the
 * next ones) and runs it; a reference to its value. The cache is kept as plain bytes: its
 * ExternalCopy lives only for this compile, so no isolated-vm handle outlives the sandboxes (one
 * left for process teardown can trip an assertion).
 */
async function runCompiled(
  isolate: ivm.Isolate,
  context: ivm.Context,
  code: string,
  filename: string,
  cache: { get(): ArrayBuffer | undefined; set(bytes: ArrayBuffer): void },
): Promise<ivm.Reference> {
  const kept = cache.get();
  const cached = kept === undefined ? undefined : new ivm.ExternalCopy(kept);
  const script = await isolate.compileScript(code, { filename, ...(cached === undefined ? { produceCachedData: true } : { cachedData: cached }) });
  cached?.release();
  // isolated-vm sets `cachedData` on the script when asked to produce it (not in its typings)
  const produced = (script as { cachedData?: ivm.ExternalCopy<ArrayBuffer> }).cachedData;
  if (produced !== undefined) {
    if (cache.get() === undefined) cache.set(produced.copy());
    produced.release();
  }
  return script.run(context, { reference: true });
}

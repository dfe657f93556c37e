import type { SourceMap } from 'node:module';
import { blockRunFailure, handlerFailure } from './block-failures.ts';
import { WriteFailed, type HostBridge } from './create-host-bridge.ts';
import type { AccessEntry, BlockPayload, LoadOutcome, RunOutcome } from './isolate/wire.ts';
import { mapStack } from './map-stack.ts';
import type { MappingRuntime } from './mapping-runtime.ts';
import { SandboxError } from './sandbox-error.ts';

/** One sandbox's runtime and what its block runs share. */
export interface RuntimeRun {
  runtime: MappingRuntime;
  bridge: HostBridge;
  fileName: string;
  sourceMap: SourceMap | undefined;
  timeoutMs: number;
  memoryLimitMb: number;
  state: RunState;
  /** which entity types a handler read or wrote for the first time, once the block's writes are applied */
  onAccess?: (entries: readonly AccessEntry[]) => void;
}

export interface RunState {
  busy: boolean;
  disposed: boolean;
  /** whether the last block completed: when not, its writes never reached the store for good */
  lastCompleted: boolean;
  /** the family's view of the block running */
  running: unknown;
  /**
   * A write refused while crossing with a later call surfaces in whichever handler made that call,
   * which may catch it: the block fails with it anyway, named for the handler that wrote.
   */
  writeFailure: WriteFailed | undefined;
  /** the host wrote entities the runtime did not see: the next block tells it to know no id absent (forgetKnownIds) */
  forgetKnownIds: boolean;
  /** while a run goes: its write stream reached block `index` of the run (create-host-bridge.ts) */
  enterBlock: ((index: number) => void) | undefined;
  /** while a run goes: a host call is about to be served, for the block the runtime is in (`running`) */
  serving: (() => void) | undefined;
}

export const createRunState = (): RunState => ({
  busy: false,
  disposed: false,
  lastCompleted: true,
  running: undefined,
  writeFailure: undefined,
  forgetKnownIds: false,
  enterBlock: undefined,
  serving: undefined,
});

/** The runtime, made and the project loaded (once); a load failure (syntax, a forbidden `require`) rejects, named for the bundle. */
export async function readyRuntime(r: Pick<RuntimeRun, 'runtime' | 'fileName' | 'sourceMap'>): Promise<Extract<LoadOutcome, { ok: true }>> {
  const load = await r.runtime.ready();
  if (load.ok) return load;
  r.runtime.reset();
  const { stack, location } = mapStack(load.error.stack ?? '', r.fileName, r.sourceMap);
  const code = load.error.name === 'ModuleNotAllowedError' ? 'MODULE_NOT_ALLOWED' : 'SANDBOX_LOAD_FAILED';
  throw new SandboxError(code, `${r.fileName} failed to load: ${load.error.message}${location ? `\n    at ${location}` : ''}`, {
    location,
    mappingStack: stack,
  });
}

/** One block of a run: its calls, its payload (made when the run starts), and what the host knows of it. */
export interface RunItem {
  height: number;
  calls: readonly { handler: string }[];
  /** `fresh`: the last block did not complete (the runtime forgets what it cached) */
  makePayload: (fresh: boolean) => BlockPayload;
  /** the family's view of the block, which `running()` answers while it runs */
  running?: unknown;
  /** its writes and host calls begin: the host stamps them with its height */
  enter?: () => void;
}

/**
 * How a run ended: its first `completed` blocks ran and all their writes are applied; `error` is why block
 * `completed` did not (a SandboxError naming its handler and height). Fewer completed and no error: block
 * `completed - 1` created data sources, and the later blocks were not run.
 */
export interface RunResult {
  completed: number;
  error?: SandboxError;
  /** block `completed - 1` stopped after its first `ran` calls, the last of which created data sources */
  ran?: number;
}

/**
 * Runs blocks in the runtime in one entry (isolate/run-block.ts), each bounded by --timeout, their writes applied at
 * their own heights, their failures named for the handler; past `budgetMs` the run ends after the block running. A
 * run that dies (timeout, memory limit) loses the writes of its blocks the host had not yet received: it counts as
 * completed only those before the last block the host saw begin.
 */
export async function runInRuntime(r: RuntimeRun, items: readonly RunItem[], budgetMs?: number): Promise<RunResult> {
  const { state, runtime } = r;
  if (state.disposed) throw new SandboxError('SANDBOX_DISPOSED', 'runBlock was called on a disposed sandbox');
  if (state.busy) throw new SandboxError('SANDBOX_BUSY', 'runBlock was called while another block was still running; blocks must run one after another');
  state.busy = true;
  let watchdog: NodeJS.Timeout | undefined;
  // past its budget the run ends after the block running: what it did reaches the flushes on time
  const budget = budgetMs === undefined || items.length < 2 ? undefined : setTimeout(() => runtime.endRunAfterBlock(), budgetMs);
  // the block whose writes and calls the host is receiving: every block before it is complete
  let entered = 0;
  const enter = (index: number) => {
    entered = index;
    items[index]!.enter?.();
  };
  const runningBlock = () => Math.min(Math.max(runtime.progressBlock(), entered), items.length - 1);
  // a call that waits (a block's transactions loaded on first read) carries no writes, so no marker: the runtime's
  // block index says where it is (it cannot move while the runtime waits)
  state.serving = () => {
    state.running = items[Math.min(runtime.progressBlock(), items.length - 1)]!.running;
  };
  let completed = 0;
  try {
    const payloads = items.map((item, i) => item.makePayload(i === 0 && !state.lastCompleted));
    if (state.forgetKnownIds) {
      payloads[0]!.forgetKnownIds = true;
      // told once: a runtime made later starts knowing nothing anyway (runtime-install.ts)
      state.forgetKnownIds = false;
    }
    state.enterBlock = enter;
    state.running = items[0]!.running;
    enter(0);
    await readyRuntime(r);
    const run = (async (): Promise<RunOutcome> => {
      state.writeFailure = undefined;
      const outcome = await runtime.runBlocks(payloads);
      if (state.writeFailure !== undefined) throw state.writeFailure;
      await r.bridge.applyWrites(outcome.writes);
      if (outcome.access !== undefined) r.onAccess?.(outcome.access);
      return outcome;
    })();
    const expired = new Promise<'timeout'>((resolve) => {
      // per block: the run's block index is polled, so a block is cut off at most a tenth of --timeout late
      let seen = 0;
      let deadline = Date.now() + r.timeoutMs;
      watchdog = setInterval(
        () => {
          const now = Date.now();
          const block = runtime.progressBlock();
          if (block !== seen) [seen, deadline] = [block, now + r.timeoutMs];
          else if (now >= deadline) resolve('timeout');
        },
        Math.max(1, Math.floor(r.timeoutMs / 10)),
      );
    });
    let outcome: RunOutcome | 'timeout';
    try {
      outcome = await Promise.race([run, expired]);
    } catch (err) {
      // the isolate's own script timeout: as --timeout
      if ((err as { code?: string })?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') outcome = 'timeout';
      else throw err;
    }
    if (outcome === 'timeout') {
      run.catch(() => {});
      // what the runtime shipped is counted whole or not at all
      await runtime.quiesce();
      const at = runningBlock();
      const item = items[at]!;
      const handler = item.calls[runtime.progress()]?.handler ?? '(none)';
      runtime.reset();
      completed = entered;
      return {
        completed,
        error: new SandboxError(
          'SANDBOX_TIMEOUT',
          `Handler ${handler} did not finish within the --timeout of ${r.timeoutMs} ms at block ${item.height}: it is stuck in a loop or awaiting something that never settles (raise --timeout if it is only slow)`,
          { handler, height: item.height },
        ),
      };
    }
    completed = outcome.completed;
    if (outcome.failed !== undefined) {
      const item = items[completed]!;
      const { call, error } = outcome.failed;
      return { completed, error: handlerFailure(item.height, item.calls[call]?.handler ?? '(unknown)', error, r.fileName, r.sourceMap) };
    }
    return outcome.ran === undefined ? { completed } : { completed, ran: outcome.ran };
  } catch (err) {
    // a refused write names its own block; the runtime gone, the block the host last saw begin
    const at = err instanceof WriteFailed ? err.block : runningBlock();
    completed = Math.min(entered, at);
    const item = items[at]!;
    const handlerOfCall = (call: number) => item.calls[call]?.handler ?? '(unknown)';
    return {
      completed,
      error: blockRunFailure(err, { height: item.height, handlerOfCall, running: () => handlerOfCall(runtime.progress()), memoryLimitMb: r.memoryLimitMb }),
    };
  } finally {
    clearInterval(watchdog);
    clearTimeout(budget);
    state.running = undefined;
    state.enterBlock = undefined;
    state.serving = undefined;
    state.busy = false;
    state.lastCompleted = completed === items.length;
  }
}

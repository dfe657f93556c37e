import type { SourceMap } from 'node:module';
import { blockRunFailure, handlerFailure } from './block-failures.ts';
import type { HostBridge, WriteFailed } from './create-host-bridge.ts';
import type { AccessEntry, BlockOutcome, BlockPayload, LoadOutcome } from './isolate/wire.ts';
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
}

export const createRunState = (): RunState => ({
  busy: false,
  disposed: false,
  lastCompleted: true,
  running: undefined,
  writeFailure: undefined,
  forgetKnownIds: false,
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

/** Runs one block's payload in the runtime, bounded by --timeout, its failures named for the handler. */
export async function runInRuntime(
  r: RuntimeRun,
  height: number,
  calls: readonly { handler: string }[],
  makePayload: (fresh: boolean) => BlockPayload,
  running: unknown,
): Promise<void> {
  const { state, runtime } = r;
  if (state.disposed) throw new SandboxError('SANDBOX_DISPOSED', 'runBlock was called on a disposed sandbox');
  if (state.busy) throw new SandboxError('SANDBOX_BUSY', 'runBlock was called while another block was still running; blocks must run one after another');
  state.busy = true;
  let timer: NodeJS.Timeout | undefined;
  let completed = false;
  try {
    const payload = makePayload(!state.lastCompleted);
    if (state.forgetKnownIds) {
      payload.forgetKnownIds = true;
      // told once: a runtime made later starts knowing nothing anyway (runtime-install.ts)
      state.forgetKnownIds = false;
    }
    state.running = running;
    await readyRuntime(r);
    const run = (async (): Promise<BlockOutcome> => {
      state.writeFailure = undefined;
      const outcome = await runtime.runBlock(payload);
      if (state.writeFailure !== undefined) throw state.writeFailure;
      if (outcome.ok) {
        await r.bridge.applyWrites(outcome.writes);
        if (outcome.access !== undefined) r.onAccess?.(outcome.access);
      }
      return outcome;
    })();
    const expired = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), r.timeoutMs);
    });
    let outcome: BlockOutcome | 'timeout';
    try {
      outcome = await Promise.race([run, expired]);
    } catch (err) {
      // the isolate's own script timeout: as --timeout
      if ((err as { code?: string })?.code === 'ERR_SCRIPT_EXECUTION_TIMEOUT') outcome = 'timeout';
      else throw err;
    }
    if (outcome === 'timeout') {
      run.catch(() => {});
      const handler = calls[runtime.progress()]?.handler ?? '(none)';
      runtime.reset();
      throw new SandboxError(
        'SANDBOX_TIMEOUT',
        `Handler ${handler} did not finish within the --timeout of ${r.timeoutMs} ms at block ${height}: it is stuck in a loop or awaiting something that never settles (raise --timeout if it is only slow)`,
        { handler, height },
      );
    }
    if (!outcome.ok) throw handlerFailure(height, calls[outcome.call]?.handler ?? '(unknown)', outcome.error, r.fileName, r.sourceMap);
    completed = true;
  } catch (err) {
    const handlerOfCall = (call: number) => calls[call]?.handler ?? '(unknown)';
    throw blockRunFailure(err, { height, handlerOfCall, running: () => handlerOfCall(runtime.progress()), memoryLimitMb: r.memoryLimitMb });
  } finally {
    clearTimeout(timer);
    state.running = undefined;
    state.busy = false;
    state.lastCompleted = completed;
  }
}

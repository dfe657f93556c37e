import type { BlockPayload, LoadOutcome, RunOutcome, ThrownError } from './isolate/wire.ts';

/**
 * One place mappings run: an isolated-vm isolate, or with --unsafe a node:vm context. The sandbox
 * drives it the same way either way.
 */
export interface MappingRuntime {
  /** makes the isolate/context and loads the project unless that is already done; idempotent */
  ready(): Promise<LoadOutcome>;
  /** runs blocks one after another in one entry (isolate/run-block.ts) */
  runBlocks(payloads: readonly BlockPayload[]): Promise<RunOutcome>;
  /** Substrate: makes a spec version's runtime inside before a block needs it (after `ready()`) */
  prepare(specVersion: number): Promise<void>;
  /** index of the call running now (readable while the mapping is stuck in a loop) */
  progress(): number;
  /** index in the run of the block running now */
  progressBlock(): number;
  /** the run ends after the block running now (the host's time budget for it is spent) */
  endRunAfterBlock(): void;
  /**
   * stops applying the writes the runtime shipped (Bridge.send) and resolves once the batch being applied is: before
   * a run that dies is counted, so that every batch the host took is whole
   */
  quiesce(): Promise<void>;
  /** abandons the isolate/context (after a timeout): the next `ready()` starts a fresh one */
  reset(): void;
  dispose(): void;
}

/** The runtime itself died (isolated-vm disposed the isolate after it passed its memory limit). */
export class RuntimeDied extends Error {
  constructor(
    readonly reason: 'memory-limit' | 'crashed',
    message: string,
  ) {
    super(message);
    this.name = 'RuntimeDied';
  }
}

/** A value thrown while loading a project, as the sandbox reports it. */
export function toThrownError(err: unknown): ThrownError {
  const e = err as Error | undefined;
  return { name: e?.name ?? 'Error', message: e?.message ?? String(err), stack: e?.stack };
}

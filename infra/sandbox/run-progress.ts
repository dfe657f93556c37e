import type { MappingRuntime } from './mapping-runtime.ts';

/**
 * The words a runtime shares with the host while it runs blocks: [0] the call running, [1] the block of the run,
 * [2] ≠ 0 when the host asks the run to end after that block. Shared memory, so the host reads them while the
 * runtime's thread is busy (or stuck in a loop), and the runtime sees the end asked without a crossing.
 * The isolate and the `--unsafe` runtimes both hand `buffer` to the prelude at install.
 */
export function createRunProgress(): Pick<MappingRuntime, 'progress' | 'progressBlock' | 'endRunAfterBlock'> & {
  buffer: SharedArrayBuffer;
  /** before a run: no call, the first block, no end asked */
  reset(): void;
} {
  const buffer = new SharedArrayBuffer(12);
  const words = new Int32Array(buffer);
  return {
    buffer,
    reset: () => words.fill(0),
    progress: () => words[0]!,
    progressBlock: () => words[1]!,
    endRunAfterBlock: () => void Atomics.store(words, 2, 1),
  };
}

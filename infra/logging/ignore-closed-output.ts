/**
 * What a write to an output nobody reads any more fails with: the reader of a pipe went away
 * (`idx-node … | head`: EPIPE), a socket's peer did (ECONNRESET), the terminal hung up (EIO), or the
 * stream was already torn down by one of these (ERR_STREAM_DESTROYED, ERR_STREAM_WRITE_AFTER_END).
 */
const CLOSED_OUTPUT_CODES = new Set(['EPIPE', 'ECONNRESET', 'EIO', 'ERR_STREAM_DESTROYED', 'ERR_STREAM_WRITE_AFTER_END']);

/** Whether `err` says the output being written to is closed (its lines can only be dropped). */
export function isClosedOutputError(err: unknown): boolean {
  const code = (err as { code?: unknown } | null | undefined)?.code;
  return typeof code === 'string' && CLOSED_OUTPUT_CODES.has(code);
}

const guarded = new WeakSet<NodeJS.WritableStream>();

/**
 * Lets a program outlive its standard output and error: once their reader is gone, what is written
 * to them is dropped. Without a listener the stream's 'error' event (EPIPE) was an uncaught exception:
 * idx-node died mid-block with exit 1, nothing saved and its writer lock left behind, at the next log
 * line or at the line its SIGTERM handler writes (issue 27). Other errors are rethrown as before.
 * Once per stream.
 */
export function ignoreClosedOutput(streams: readonly NodeJS.WritableStream[] = [process.stdout, process.stderr]): void {
  for (const stream of streams) {
    if (guarded.has(stream)) continue;
    guarded.add(stream);
    stream.on('error', (err: unknown) => {
      if (!isClosedOutputError(err)) throw err;
    });
  }
}

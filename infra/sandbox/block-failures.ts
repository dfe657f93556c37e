import type { SourceMap } from 'node:module';
import { inspect } from 'node:util';
import { WriteFailed } from './create-host-bridge.ts';
import type { ThrownError } from './isolate/wire.ts';
import { mapStack } from './map-stack.ts';
import { RuntimeDied } from './mapping-runtime.ts';
import { SandboxError } from './sandbox-error.ts';

/** A handler's thrown error as a SandboxError, its stack mapped to the project's sources. */
export function handlerFailure(height: number, handler: string, error: ThrownError, fileName: string, sourceMap: SourceMap | undefined): SandboxError {
  if (error.name === 'HandlerNotFound') {
    return new SandboxError('HANDLER_NOT_FOUND', `Handler ${handler} at block ${height}: ${error.message}`, { handler, height });
  }
  const { stack, location } = mapStack(error.stack ?? '', fileName, sourceMap);
  const frames = stack.split('\n').filter((l) => /^\s+at\s/.test(l));
  const headline = error.name && error.name !== 'Error' ? `${error.name}: ${error.message}` : error.message;
  return new SandboxError('HANDLER_FAILED', `Handler ${handler} failed at block ${height}: ${headline}${frames.length ? `\n${frames.join('\n')}` : ''}`, {
    handler,
    height,
    location,
    mappingStack: stack,
  });
}

/**
 * What a block's run rejected with, as a SandboxError named for the handler: a refused write (by the
 * call that made it), the runtime gone (out of memory, crashed), or anything else (`running`: the
 * handler that was running).
 */
export function blockRunFailure(
  err: unknown,
  at: { height: number; handlerOfCall: (call: number) => string; running: () => string; memoryLimitMb: number },
): SandboxError {
  const { height } = at;
  if (err instanceof SandboxError) return err;
  if (err instanceof WriteFailed) {
    const handler = at.handlerOfCall(err.call);
    return new SandboxError('HANDLER_FAILED', `Handler ${handler} failed at block ${height}: ${err.message}`, { handler, height, cause: err.cause });
  }
  if (err instanceof RuntimeDied) {
    const handler = at.running();
    if (err.reason === 'memory-limit') {
      return new SandboxError(
        'SANDBOX_MEMORY_LIMIT',
        `Handler ${handler} ran out of memory at block ${height}: the sandbox is limited to ${at.memoryLimitMb} MB. The mapping keeps too much in memory (a growing global, a huge array); the sandbox is recreated for the next block`,
        { handler, height },
      );
    }
    return new SandboxError('SANDBOX_CRASHED', `the sandbox stopped while ${handler} ran at block ${height}: ${err.message}`, {
      handler,
      height,
      cause: err,
    });
  }
  // anything else the runtime rejected with (an unhandled rejection's value, say) still names where it came from
  const handler = at.running();
  const text =
    err instanceof Error ? `${err.name && err.name !== 'Error' ? `${err.name}: ` : ''}${err.message}` : `a non-Error value was thrown: ${inspect(err)}`;
  return new SandboxError('HANDLER_FAILED', `Handler ${handler} failed at block ${height}: ${text}`, { handler, height, cause: err });
}

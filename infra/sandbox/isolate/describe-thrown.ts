import { util } from './builtins/util.ts';
import { DEFAULT_LIMITS, truncateText } from './limits.ts';
import type { ThrownError } from './wire.ts';

/** A value a mapping threw, as it crosses to the host: bounded as a log line, never throwing itself. */
export function describeThrown(err: unknown): ThrownError {
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

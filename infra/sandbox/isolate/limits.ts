/**
 * Bounds on what a mapping can make the host hold. The isolate's heap limit covers the mapping's
 * own memory only: every log line, store write and chain request is copied into the host, so each
 * is measured here, inside the sandbox, before it crosses. All limits reset with every block.
 */

import { RealDate } from './deterministic.ts';

export interface SandboxLimits {
  /** characters of one log line's text (longer text is cut, with a note of how much) */
  logLineChars: number;
  /** characters of log text one block may send; further lines are dropped, with one warning */
  logBlockChars: number;
  /** bytes of one entity written (`store.set`, one record of a bulk write) */
  entityBytes: number;
  /** bytes of all store writes of one block */
  blockWriteBytes: number;
  /** entities written or removed by one block */
  blockWriteRecords: number;
  /** bytes of the arguments of one host call (`api.call` data, `api.send` params, a store read's filter) */
  callBytes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = {
  logLineChars: 64 * 1024,
  logBlockChars: 4 * 1024 * 1024,
  entityBytes: 4 * 1024 * 1024,
  blockWriteBytes: 64 * 1024 * 1024,
  blockWriteRecords: 100_000,
  callBytes: 1024 * 1024,
};

const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** The size a value takes once copied out, about: strings by length, numbers 8, objects the sum of keys and values. */
export function measure(value: unknown, depth = 0): number {
  switch (typeof value) {
    case 'string':
      return value.length;
    case 'number':
    case 'boolean':
      return 8;
    case 'bigint':
      return value >= INT64_MIN && value <= INT64_MAX ? 8 : Math.ceil(value.toString(16).length / 2);
    case 'object': {
      if (value === null) return 1;
      if (depth > 64) return 0;
      if (ArrayBuffer.isView(value)) return value.byteLength;
      if (value instanceof ArrayBuffer) return value.byteLength;
      if (value instanceof RealDate) return 8;
      let n = 8;
      if (Array.isArray(value)) {
        for (const v of value) n += measure(v, depth + 1);
        return n;
      }
      for (const k of Object.keys(value)) n += k.length + measure((value as Record<string, unknown>)[k], depth + 1);
      return n;
    }
    default:
      return 0;
  }
}

export function formatSize(bytes: number): string {
  if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MiB`;
  if (bytes >= 1024) return `${(bytes / 1024).toFixed(1).replace(/\.0$/, '')} KiB`;
  return `${bytes} bytes`;
}

/** Cuts a log text to `max` characters, saying how many were left out. */
export function truncateText(text: string, max: number): string {
  if (text.length <= max) return text;
  // never split a surrogate pair
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) end--;
  return `${text.slice(0, end)}… (${text.length - end} more characters)`;
}

export type LogAdmission = 'send' | 'first-drop' | 'drop';

/** The per-block budget of log text: admits lines until the block has sent `logBlockChars`. */
export function createLogBudget(limits: SandboxLimits) {
  let used = 0;
  let dropped = 0;
  return {
    admit(chars: number): LogAdmission {
      // a line costs at least a little: a loop of empty lines is a flood too
      const cost = Math.max(chars, 64);
      if (used + cost <= limits.logBlockChars) {
        used += cost;
        return 'send';
      }
      return dropped++ === 0 ? 'first-drop' : 'drop';
    },
    dropped: () => dropped,
    reset() {
      used = 0;
      dropped = 0;
    },
  };
}

/** The per-block budget of store writes; a write past a limit throws in the handler that made it. */
export function createWriteBudget(limits: SandboxLimits) {
  let bytes = 0;
  let records = 0;
  const count = (what: () => string, n: number): void => {
    if (records + n > limits.blockWriteRecords) {
      throw new RangeError(`${what()}: this block would write ${records + n} entities, above the sandbox's limit of ${limits.blockWriteRecords} per block`);
    }
  };
  return {
    /** before copying a bulk write: refuses one that would pass the count */
    count,
    /** `what` names the write (`store.set("Transfer", "0x…")`), made only for an error; `sizes` the bytes of each entity it writes */
    charge(what: () => string, sizes: readonly number[]): void {
      let total = 0;
      for (const size of sizes) {
        if (size > limits.entityBytes) {
          throw new RangeError(
            `${what()}: the entity is about ${formatSize(size)}, above the sandbox's limit of ${formatSize(limits.entityBytes)} per entity; store large data elsewhere and keep a reference (a hash, a URL) in the entity`,
          );
        }
        total += size;
      }
      count(what, sizes.length);
      if (bytes + total > limits.blockWriteBytes) {
        throw new RangeError(
          `${what()}: this block's store writes would reach about ${formatSize(bytes + total)}, above the sandbox's limit of ${formatSize(limits.blockWriteBytes)} per block`,
        );
      }
      records += sizes.length;
      bytes += total;
    },
    reset() {
      bytes = 0;
      records = 0;
    },
  };
}

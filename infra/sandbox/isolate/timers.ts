import type { BlockOutcome, BlockPayload, LoadOutcome, ThrownError } from './wire.ts';

/**
 * Timers for mappings (`setTimeout`, `setInterval`, `setImmediate` and their `clear*`), and the
 * `process.nextTick` the bundled `stream` uses. An isolate has no event loop of its own: each
 * armed timer asks the host to wait (`sleep`, answered when the delay has passed) and runs its
 * callback when that answer comes back in.
 *
 * Timers live within a block: the handlers of the block that set them can await them, and those
 * still pending when the block ends (or when the bundle's top level finishes) are cancelled, so
 * none fires into another block or between blocks. The block's `--timeout` bounds them with the
 * rest of its handlers. A callback that throws fails the running block, as an uncaught exception
 * in a timer would stop Node.
 */
export interface TimerBridge {
  /** resolves true once `ms` have passed (0: the host's next turn), false when cancelled */
  sleep(id: number, ms: number): Promise<boolean>;
  /** fire and forget: the host forgets these waits */
  cancelTimers(ids: number[]): void;
}

const TIMEOUT_MAX = 2 ** 31 - 1;
const MAX_PENDING_TIMERS = 10_000;

interface Armed {
  handle: Timeout | Immediate;
  fn: (...args: unknown[]) => unknown;
  args: unknown[];
  delay: number;
  repeat: boolean;
  /** the host wait now pending for it */
  wait: number;
}

let bridge: TimerBridge | undefined;
let nextWait = 1;
let nextKey = 1;
// by the host wait id, and by the handle's key (clearTimeout also takes `+timeout`)
const byWait = new Map<number, Armed>();
const byKey = new Map<number, Armed>();
let idle: (err: unknown) => void = () => {};
let report: (err: unknown) => void = (err) => idle(err);

/** What `setImmediate` returns; the base of what `setTimeout`/`setInterval` return. */
export class Immediate {
  readonly #key = nextKey++;
  /** @internal */
  get key(): number {
    return this.#key;
  }
  ref(): this {
    return this;
  }
  unref(): this {
    return this;
  }
  hasRef(): boolean {
    return true;
  }
}

export class Timeout extends Immediate {
  refresh(): this {
    const armed = byKey.get(this.key);
    if (armed !== undefined) {
      drop(armed, false);
      arm(armed);
    }
    return this;
  }
  close(): this {
    clear(this);
    return this;
  }
  [Symbol.toPrimitive](): number {
    return this.key;
  }
}

function callbackError(fn: unknown): TypeError {
  const err = new TypeError(`The "callback" argument must be of type function. Received ${fn === null ? 'null' : typeof fn}`) as TypeError & { code: string };
  err.code = 'ERR_INVALID_ARG_TYPE';
  return err;
}

function arm(armed: Armed): void {
  if (bridge === undefined) throw new Error('timers are not available before the sandbox runtime is installed');
  // each pending timer is a timer in the host: a loop arming them must not fill the host's memory
  if (byWait.size >= MAX_PENDING_TIMERS) {
    throw new RangeError(`${MAX_PENDING_TIMERS} timers are already pending, the sandbox's limit: clear some, or wait for them, before setting more`);
  }
  const wait = nextWait++;
  armed.wait = wait;
  byWait.set(wait, armed);
  byKey.set(armed.handle.key, armed);
  bridge.sleep(wait, armed.delay).then(
    (fired) => {
      if (fired && byWait.get(wait) === armed) fire(armed);
    },
    () => {},
  );
}

function drop(armed: Armed, forget: boolean): void {
  byWait.delete(armed.wait);
  if (forget) byKey.delete(armed.handle.key);
  bridge?.cancelTimers([armed.wait]);
}

function fire(armed: Armed): void {
  byWait.delete(armed.wait);
  if (armed.repeat) arm(armed);
  else byKey.delete(armed.handle.key);
  try {
    armed.fn.apply(armed.handle, armed.args);
  } catch (err) {
    report(err);
  }
}

function delayOf(ms: unknown): number {
  const n = Number(ms);
  // as Node: anything not in 1..2^31-1 is 1
  return n >= 1 && n <= TIMEOUT_MAX ? Math.trunc(n) : 1;
}

function schedule(fn: unknown, ms: unknown, args: unknown[], repeat: boolean): Timeout {
  if (typeof fn !== 'function') throw callbackError(fn);
  const handle = new Timeout();
  arm({ handle, fn: fn as Armed['fn'], args, delay: delayOf(ms), repeat, wait: 0 });
  return handle;
}

function clear(handle: unknown): void {
  const key = handle instanceof Immediate ? handle.key : typeof handle === 'number' || typeof handle === 'string' ? Number(handle) : undefined;
  const armed = key === undefined ? undefined : byKey.get(key);
  if (armed !== undefined) drop(armed, true);
}

export const timerGlobals = {
  setTimeout: (fn: unknown, ms?: unknown, ...args: unknown[]) => schedule(fn, ms, args, false),
  setInterval: (fn: unknown, ms?: unknown, ...args: unknown[]) => schedule(fn, ms, args, true),
  setImmediate: (fn: unknown, ...args: unknown[]): Immediate => {
    if (typeof fn !== 'function') throw callbackError(fn);
    const handle = new Immediate();
    arm({ handle, fn: fn as Armed['fn'], args, delay: 0, repeat: false, wait: 0 });
    return handle;
  },
  clearTimeout: clear,
  clearInterval: clear,
  clearImmediate: clear,
};

/** `process.nextTick` for the bundled stream code: a microtask whose throw fails the block. */
export function nextTick(fn: (...args: unknown[]) => unknown, ...args: unknown[]): void {
  if (typeof fn !== 'function') throw callbackError(fn);
  void Promise.resolve().then(() => {
    try {
      fn(...args);
    } catch (err) {
      report(err);
    }
  });
}

/** Cancels every pending timer (the block or the load that set them is over). */
function cancelAll(): void {
  const waits = [...byWait.keys()];
  byWait.clear();
  byKey.clear();
  if (waits.length > 0) bridge?.cancelTimers(waits);
}

interface Runtime {
  load(factory: never): LoadOutcome;
  runBlock(payload: BlockPayload): Promise<BlockOutcome>;
}

/**
 * A block failed by a timer callback while its handler still awaits: the host must drop this
 * runtime, or the handler's late store calls would reach the next block.
 */
export type TimedBlockOutcome = BlockOutcome | (Extract<BlockOutcome, { ok: false }> & { abandon: true });

/**
 * Installs the timers and wraps the runtime's entry points: pending timers are cancelled when
 * the load or a block ends, and a timer callback (or nextTick) that throws while a block runs
 * fails that block at the call running then. Between blocks such an error goes to `idleError`.
 */
export function withTimers<R extends Runtime>(
  timerBridge: TimerBridge,
  hooks: { current: () => number; describe: (err: unknown) => ThrownError; idleError: (err: unknown) => void },
  runtime: R,
): Omit<R, 'runBlock'> & { runBlock(payload: BlockPayload): Promise<TimedBlockOutcome> } {
  bridge = timerBridge;
  idle = hooks.idleError;
  return {
    ...runtime,
    load(factory: never) {
      try {
        return runtime.load(factory);
      } finally {
        cancelAll();
      }
    },
    async runBlock(payload: BlockPayload): Promise<TimedBlockOutcome> {
      let fail!: (outcome: TimedBlockOutcome) => void;
      const failed = new Promise<TimedBlockOutcome>((resolve) => (fail = resolve));
      report = (err) => fail({ ok: false, call: hooks.current(), error: hooks.describe(err), abandon: true });
      try {
        return await Promise.race([runtime.runBlock(payload), failed]);
      } finally {
        report = (err) => idle(err);
        cancelAll();
      }
    },
  };
}

/**
 * `events` for mappings and for the bundled `stream` (readable-stream requires it): Node's
 * EventEmitter semantics on the calls libraries make — listener order, `once` wrappers that
 * `removeListener` finds by the original function, `newListener`/`removeListener` events, an
 * `'error'` without a listener thrown, and the static `once`/`on`/`listenerCount` helpers.
 */
type Listener = (...args: any[]) => unknown;
type Wrapped = Listener & { listener?: Listener };

const kEvents = Symbol('events');
const kMax = Symbol('maxListeners');
export const errorMonitor: unique symbol = Symbol('events.errorMonitor');
let defaultMaxListeners = 10;

function checkListener(listener: unknown): asserts listener is Listener {
  if (typeof listener !== 'function') {
    const err = new TypeError(`The "listener" argument must be of type function. Received ${listener === null ? 'null' : typeof listener}`);
    (err as { code?: string }).code = 'ERR_INVALID_ARG_TYPE';
    throw err;
  }
}

interface Emitter {
  [kEvents]?: Map<string | symbol, Wrapped[]>;
  [kMax]?: number;
  [k: string]: any;
}

/**
 * A function, not a class: stream code (and older libraries) call `EventEmitter.call(this)` from
 * their own constructors, which a class constructor refuses.
 */
export const EventEmitter = function EventEmitter(this: Emitter) {
  init.call(this);
} as unknown as {
  new (): any;
  (this: any): void;
  prototype: any;
  defaultMaxListeners: number;
  errorMonitor: typeof errorMonitor;
  EventEmitter: any;
  init: typeof init;
  once: typeof once;
  on: typeof on;
  listenerCount(emitter: any, type: string | symbol): number;
};

function init(this: Emitter): void {
  // an own map, not one a prototype that is itself an emitter carries
  if (!Object.prototype.hasOwnProperty.call(this, kEvents)) this[kEvents] = new Map();
}

function eventsOf(e: Emitter): Map<string | symbol, Wrapped[]> {
  if (!Object.prototype.hasOwnProperty.call(e, kEvents)) e[kEvents] = new Map();
  return e[kEvents]!;
}

function checkCount(n: unknown, name: string): number {
  if (typeof n !== 'number' || n < 0 || Number.isNaN(n))
    throw new RangeError(`The value of "${name}" is out of range. It must be a non-negative number. Received ${String(n)}`);
  return n;
}

function onceWrapper(target: Emitter, type: string | symbol, listener: Listener): Wrapped {
  checkListener(listener);
  let fired = false;
  const wrapped: Wrapped = function (this: unknown, ...args: unknown[]) {
    if (fired) return undefined;
    fired = true;
    target.removeListener(type, wrapped);
    return listener.apply(this, args);
  };
  wrapped.listener = listener;
  return wrapped;
}

function add(target: Emitter, type: string | symbol, listener: Listener, prepend: boolean, wrapped: Wrapped = listener): Emitter {
  checkListener(listener);
  const events = eventsOf(target);
  if (events.has('newListener')) target.emit('newListener', type, listener);
  let list = events.get(type);
  if (list === undefined) events.set(type, (list = []));
  if (prepend) list.unshift(wrapped);
  else list.push(wrapped);
  return target;
}

Object.defineProperty(EventEmitter, 'defaultMaxListeners', {
  enumerable: true,
  get: () => defaultMaxListeners,
  set: (n: unknown) => {
    defaultMaxListeners = checkCount(n, 'defaultMaxListeners');
  },
});
EventEmitter.errorMonitor = errorMonitor;
EventEmitter.init = init;
EventEmitter.listenerCount = (emitter: Emitter, type: string | symbol) => emitter.listenerCount(type);

const proto: Record<string, unknown> & ThisType<Emitter> = {
  setMaxListeners(n: number) {
    this[kMax] = checkCount(n, 'n');
    return this;
  },
  getMaxListeners() {
    return this[kMax] ?? defaultMaxListeners;
  },
  emit(type: string | symbol, ...args: unknown[]): boolean {
    const events = eventsOf(this);
    if (type === 'error') {
      const monitors = events.get(errorMonitor);
      if (monitors) for (const l of [...monitors]) l.apply(this, args);
    }
    const list = events.get(type);
    if (list === undefined || list.length === 0) {
      if (type !== 'error') return false;
      const er = args[0];
      if (er instanceof Error) throw er;
      const err = new Error(`Unhandled error. (${typeof er === 'string' ? `'${er}'` : String(er)})`) as Error & { code: string; context: unknown };
      err.code = 'ERR_UNHANDLED_ERROR';
      err.context = er;
      throw err;
    }
    // a copy: listeners added or removed while emitting wait for the next emit
    for (const l of [...list]) l.apply(this, args);
    return true;
  },
  addListener(type: string | symbol, listener: Listener) {
    return add(this, type, listener, false);
  },
  prependListener(type: string | symbol, listener: Listener) {
    return add(this, type, listener, true);
  },
  once(type: string | symbol, listener: Listener) {
    return add(this, type, listener, false, onceWrapper(this, type, listener));
  },
  prependOnceListener(type: string | symbol, listener: Listener) {
    return add(this, type, listener, true, onceWrapper(this, type, listener));
  },
  removeListener(type: string | symbol, listener: Listener) {
    checkListener(listener);
    const events = eventsOf(this);
    const list = events.get(type);
    if (list === undefined) return this;
    for (let i = list.length - 1; i >= 0; i--) {
      if (list[i] === listener || list[i]!.listener === listener) {
        const [removed] = list.splice(i, 1);
        if (list.length === 0) events.delete(type);
        if (events.has('removeListener')) this.emit('removeListener', type, removed!.listener ?? removed);
        break;
      }
    }
    return this;
  },
  removeAllListeners(type?: string | symbol) {
    const events = eventsOf(this);
    const types = type === undefined ? [...events.keys()].filter((k) => k !== 'removeListener') : [type];
    for (const t of types) {
      const list = events.get(t);
      // last to first, as Node does, each announced to 'removeListener' listeners
      if (list !== undefined) for (let i = list.length - 1; i >= 0; i--) this.removeListener(t, list[i]!.listener ?? list[i]!);
    }
    if (type === undefined) events.delete('removeListener');
    return this;
  },
  listeners(type: string | symbol) {
    return (eventsOf(this).get(type) ?? []).map((l) => l.listener ?? l);
  },
  rawListeners(type: string | symbol) {
    return [...(eventsOf(this).get(type) ?? [])];
  },
  listenerCount(type: string | symbol, listener?: Listener) {
    const list = eventsOf(this).get(type) ?? [];
    return listener === undefined ? list.length : list.filter((l) => l === listener || l.listener === listener).length;
  },
  eventNames() {
    return [...eventsOf(this).keys()];
  },
};
proto.on = proto.addListener;
proto.off = proto.removeListener;
for (const [k, v] of Object.entries(proto))
  Object.defineProperty(EventEmitter.prototype, k, { value: v, writable: true, configurable: true, enumerable: false });

/** Resolves with the arguments of the next `type` event; rejects on an `'error'` first. */
export function once(emitter: Emitter, type: string | symbol): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const onError = (err: unknown) => {
      emitter.removeListener(type, onEvent);
      reject(err);
    };
    const onEvent = (...args: unknown[]) => {
      if (type !== 'error') emitter.removeListener('error', onError);
      resolve(args);
    };
    emitter.once(type, onEvent);
    if (type !== 'error') emitter.once('error', onError);
  });
}

/** An async iterator over the arguments of every `type` event until an `'error'` (thrown) or `return()`. */
export function on(emitter: Emitter, type: string | symbol): AsyncIterableIterator<unknown[]> {
  const queued: unknown[][] = [];
  const waiting: { resolve: (r: IteratorResult<unknown[]>) => void; reject: (e: unknown) => void }[] = [];
  let failure: unknown;
  let done = false;
  const onEvent = (...args: unknown[]) => {
    const w = waiting.shift();
    if (w) w.resolve({ value: args, done: false });
    else queued.push(args);
  };
  const onError = (err: unknown) => {
    finish();
    const w = waiting.shift();
    if (w) w.reject(err);
    else failure = err;
  };
  const finish = () => {
    done = true;
    emitter.removeListener(type, onEvent);
    emitter.removeListener('error', onError);
    for (const w of waiting.splice(0)) w.resolve({ value: undefined as never, done: true });
  };
  emitter.on(type, onEvent);
  if (type !== 'error') emitter.on('error', onError);
  return {
    next(): Promise<IteratorResult<unknown[]>> {
      if (queued.length > 0) return Promise.resolve({ value: queued.shift()!, done: false });
      if (failure !== undefined) {
        const e = failure;
        failure = undefined;
        return Promise.reject(e);
      }
      if (done) return Promise.resolve({ value: undefined as never, done: true });
      return new Promise((resolve, reject) => waiting.push({ resolve, reject }));
    },
    return(): Promise<IteratorResult<unknown[]>> {
      finish();
      return Promise.resolve({ value: undefined as never, done: true });
    },
    throw(err: unknown): Promise<IteratorResult<unknown[]>> {
      finish();
      return Promise.reject(err);
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

EventEmitter.EventEmitter = EventEmitter;
EventEmitter.once = once;
EventEmitter.on = on;

/** `require('events')` is the EventEmitter class itself, carrying the helpers, as in Node. */
export const events = EventEmitter;

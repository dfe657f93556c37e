/**
 * The clock and randomness mappings see outside --unsafe: functions of the block, so two runs of a
 * project write the same rows and proof of indexing stays reproducible.
 *
 * - `Date.now()`, `new Date()` and `Date()` read a clock that starts at the block's timestamp (in
 *   ms) and moves 1 ms forward on every read: time never goes backwards and a loop waiting for a
 *   moment still ends, but the values depend only on the block and the mapping's own steps.
 *   Before the first block (the bundle's top level) the clock starts at 0.
 * - `Math.random()` and `crypto.randomBytes`/`randomUUID`/`getRandomValues` draw from one
 *   generator (sfc32) seeded with the block's hash.
 */
/**
 * The context's own `Date`, as it was before `installDeterministicTime` put a Proxy in its place: the sandbox's
 * own code tests and copies dates with it (every `store.set` and `store.get` copies and measures an entity).
 * `instanceof` and `new` through the Proxy call its traps, for the same answers, since the Proxy's `prototype` is
 * this one's. Measured with `npm run bench -- sandbox`, the ERC20 handler: 124 → 110 µs of CPU a call.
 */
export const RealDate: DateConstructor = Date;

export interface BlockEntropy {
  /** a block starts: the clock and the generator restart from it */
  enter(timestampSeconds: number, hash: string): void;
  now(): number;
  random(): number;
  bytes(size: number): Uint8Array;
  uuid(): string;
}

export function createBlockEntropy(): BlockEntropy {
  let clock = 0;
  let a = 0x9e3779b9;
  let b = 0x243f6a88;
  let c = 0xb7e15162;
  let d = 1;
  const next = (): number => {
    // sfc32: small, fast, passes PractRand; 32-bit state words
    a >>>= 0;
    b >>>= 0;
    c >>>= 0;
    d >>>= 0;
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return t >>> 0;
  };
  const entropy: BlockEntropy = {
    enter(timestampSeconds, hash) {
      clock = timestampSeconds * 1000;
      const hex = (hash.startsWith('0x') ? hash.slice(2) : hash).padEnd(64, '0');
      a = 0x9e3779b9;
      b = 0x243f6a88;
      c = 0xb7e15162;
      d = 1;
      // every word of the hash moves the state (a plain fold would cancel repeated words)
      for (let i = 0; i < 8; i++) {
        a ^= parseInt(hex.slice(i * 8, i * 8 + 8), 16) || 0;
        next();
        next();
      }
      // the first outputs of sfc32 still show the seed
      for (let i = 0; i < 12; i++) next();
    },
    now: () => clock++,
    random: () => next() / 4294967296,
    bytes(size) {
      if (typeof size !== 'number' || !Number.isInteger(size) || size < 0 || size > 65536)
        throw new RangeError(`randomBytes: size must be an integer from 0 to 65536, got ${String(size)}`);
      const out = new Uint8Array(size);
      for (let i = 0; i < size; i += 4) {
        const w = next();
        for (let j = 0; j < 4 && i + j < size; j++) out[i + j] = (w >>> (j * 8)) & 0xff;
      }
      return out;
    },
    uuid() {
      const b = entropy.bytes(16);
      b[6] = (b[6]! & 0x0f) | 0x40;
      b[8] = (b[8]! & 0x3f) | 0x80;
      const h = Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
      return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
    },
  };
  return entropy;
}

/**
 * Makes the context's `Date` and `Math.random` read `entropy`. `Date` stays the same function to
 * `instanceof` and `Date.prototype` (a Proxy), so dates made in a mapping are ordinary dates.
 */
export function installDeterministicTime(g: Record<string, unknown>, entropy: BlockEntropy): void {
  const ContextDate = g.Date as DateConstructor;
  const now = () => entropy.now();
  const DetDate = new Proxy(ContextDate, {
    // `new Date(…)` itself is built from the real Date: the same prototype, without a trip through `get` for it
    construct: (target, args, newTarget): object =>
      Reflect.construct(target, args.length === 0 ? [entropy.now()] : args, newTarget === DetDate ? target : newTarget) as object,
    apply: () => new ContextDate(entropy.now()).toString(),
    get: (target, key, receiver) => (key === 'now' ? now : Reflect.get(target, key, receiver)),
  });
  Object.defineProperty(ContextDate.prototype, 'constructor', { value: DetDate, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(g, 'Date', { value: DetDate, writable: true, configurable: true, enumerable: false });
  Object.defineProperty(g.Math as object, 'random', { value: () => entropy.random(), writable: true, configurable: true, enumerable: false });
}

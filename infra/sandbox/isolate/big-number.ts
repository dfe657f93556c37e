/**
 * An ethers-v5-style BigNumber over a native bigint: what SubQuery mappings get for decoded uint/int
 * arguments (`log.args.value.toBigInt()`, `.toString()`, `.add(…)`). ethers itself is not bundled
 * because it is large and only this class of it is needed; `_hex`/`_isBigNumber` are own properties
 * so a mapping's own ethers accepts these values (`BigNumber.from(x)`, `BigNumber.isBigNumber(x)`).
 */
export type BigNumberish = BigNumber | bigint | number | string | { _hex: string } | { toHexString(): string } | ArrayLike<number>;

/** ethers v5 refuses numbers from here on (`value >= MAX_SAFE`), one below Number.MAX_SAFE_INTEGER's end */
const MAX_SAFE = 0x1fffffffffffff;
const MAX_SAFE_BIG = BigInt(MAX_SAFE);

/**
 * ethers v5 computes with BN.js, and where BN.js answers oddly (unsigned `mod`, `toTwos` of a
 * positive, widths below a value's size) ethers does too: the methods below keep those answers, as
 * a mapping written against SubQuery's node sees them (big-number-ethers.test.ts compares every
 * method with ethers' own).
 */
export class BigNumber {
  declare readonly _hex: string;
  declare readonly _isBigNumber: true;
  readonly #v: bigint;

  /** `hex`: ethers' text of a hex string given to `from`, which keeps its letters' case */
  private constructor(value: bigint, hex = toHex(value)) {
    this.#v = value;
    // own and in ethers' order: Object.keys and spreads of a BigNumber list them as ethers does
    Object.defineProperty(this, '_hex', { value: hex, enumerable: true });
    Object.defineProperty(this, '_isBigNumber', { value: true, enumerable: true });
    Object.freeze(this);
  }

  static from(value: BigNumberish): BigNumber {
    if (value instanceof BigNumber) return value;
    const read = readValue(value);
    return typeof read === 'bigint' ? new BigNumber(read) : new BigNumber(hexValue(read), read);
  }

  static isBigNumber(value: unknown): value is BigNumber {
    return !!(value && (value as { _isBigNumber?: unknown })._isBigNumber);
  }

  private get v(): bigint {
    return this.#v;
  }

  toBigInt(): bigint {
    return this.v;
  }

  toString(...radix: unknown[]): string {
    // ethers: base 10 is assumed (with a warning), any other argument is refused
    if (radix.length > 0 && radix[0] !== 10) {
      throw new Error(
        radix[0] === 16 ? 'BigNumber.toString does not accept any parameters; use bigNumber.toHexString()' : 'BigNumber.toString does not accept parameters',
      );
    }
    return this.v.toString();
  }

  toNumber(): number {
    const v = this.v;
    if (v > MAX_SAFE_BIG || v < -MAX_SAFE_BIG) fault('overflow', 'toNumber');
    return Number(v);
  }

  toHexString(): string {
    return this._hex;
  }

  toJSON(): { type: 'BigNumber'; hex: string } {
    return { type: 'BigNumber', hex: this._hex };
  }

  add(other: BigNumberish): BigNumber {
    return new BigNumber(this.v + toBigInt(other));
  }
  sub(other: BigNumberish): BigNumber {
    return new BigNumber(this.v - toBigInt(other));
  }
  mul(other: BigNumberish): BigNumber {
    return new BigNumber(this.v * toBigInt(other));
  }
  div(other: BigNumberish): BigNumber {
    const d = toBigInt(other);
    if (d === 0n) fault('division-by-zero', 'div');
    return new BigNumber(this.v / d);
  }
  /** BN.js's `umod`: never negative */
  mod(other: BigNumberish): BigNumber {
    const d = toBigInt(other);
    // ethers refuses a negative modulus under this name; zero fails in BN.js
    if (d <= 0n) fault('division-by-zero', 'mod');
    const r = this.v % d;
    return new BigNumber(r < 0n ? r + d : r);
  }
  pow(other: BigNumberish): BigNumber {
    const e = toBigInt(other);
    if (e < 0n) fault('negative-power', 'pow');
    return new BigNumber(this.v ** e);
  }
  abs(): BigNumber {
    const v = this.v;
    return v < 0n ? new BigNumber(-v) : this;
  }
  and(other: BigNumberish): BigNumber {
    const [a, b] = unsigned(this.v, toBigInt(other), 'and');
    return new BigNumber(a & b);
  }
  or(other: BigNumberish): BigNumber {
    const [a, b] = unsigned(this.v, toBigInt(other), 'or');
    return new BigNumber(a | b);
  }
  xor(other: BigNumberish): BigNumber {
    const [a, b] = unsigned(this.v, toBigInt(other), 'xor');
    return new BigNumber(a ^ b);
  }
  shl(bits: number): BigNumber {
    return new BigNumber(this.v << BigInt(width(this.v, bits, 'shl')));
  }
  shr(bits: number): BigNumber {
    return new BigNumber(this.v >> BigInt(width(this.v, bits, 'shr')));
  }
  mask(bits: number): BigNumber {
    return new BigNumber(this.v & ((1n << BigInt(width(this.v, bits, 'mask'))) - 1n));
  }
  /** BN.js's `fromTwos`: negative when bit `bits - 1` of the magnitude is set */
  fromTwos(bits: number): BigNumber {
    const v = this.v;
    const magnitude = v < 0n ? -v : v;
    if (!Number.isInteger(bits) || bits < 1) throw new RangeError(`BigNumber.fromTwos: invalid width ${bits}`);
    if (((magnitude >> BigInt(bits - 1)) & 1n) === 0n) return new BigNumber(v);
    // notn keeps the sign, then + 1, then negated
    const flipped = notn(magnitude, bits);
    const signed = (v < 0n ? -flipped : flipped) + 1n;
    return new BigNumber(-signed);
  }
  /** BN.js's `toTwos`: a positive value as it is, a negative one as `width` bits (more when it is wider) */
  toTwos(bits: number): BigNumber {
    const v = this.v;
    if (v >= 0n) return new BigNumber(v);
    if (!Number.isInteger(bits) || bits < 0) throw new RangeError(`BigNumber.toTwos: invalid width ${bits}`);
    return new BigNumber(notn(-v, bits) + 1n);
  }
  eq(other: BigNumberish): boolean {
    return this.v === toBigInt(other);
  }
  lt(other: BigNumberish): boolean {
    return this.v < toBigInt(other);
  }
  lte(other: BigNumberish): boolean {
    return this.v <= toBigInt(other);
  }
  gt(other: BigNumberish): boolean {
    return this.v > toBigInt(other);
  }
  gte(other: BigNumberish): boolean {
    return this.v >= toBigInt(other);
  }
  isZero(): boolean {
    return this.v === 0n;
  }
  isNegative(): boolean {
    return this.v < 0n;
  }
}

/** ethers' NUMERIC_FAULT, with its `fault` and `operation` fields for a mapping that reads them */
function fault(kind: string, operation: string): never {
  throw Object.assign(new Error(`${kind} (fault="${kind}", operation="${operation}", code=NUMERIC_FAULT, version=bignumber/5.8.0)`), {
    reason: kind,
    code: 'NUMERIC_FAULT',
    fault: kind,
    operation,
  });
}

/** ethers refuses bitwise operations whose result would be unbounded: either operand negative */
function unsigned(a: bigint, b: bigint, operation: string): [bigint, bigint] {
  if (a < 0n || b < 0n) fault('unbound-bitwise-result', operation);
  return [a, b];
}

/** ethers refuses shifts and masks of a negative value or by a negative width */
function width(v: bigint, bits: number, operation: string): number {
  if (v < 0n || bits < 0) fault('negative-width', operation);
  return bits;
}

/** BN.js's `notn(width)` of a magnitude: its low `width` bits inverted, the bits above cleared. */
function notn(magnitude: bigint, width: number): bigint {
  return ~magnitude & ((1n << BigInt(width)) - 1n);
}

/** ethers v5's hex form: minimal even-length, `-0x…` for negatives, `0x00` for zero. */
function toHex(v: bigint): string {
  if (v < 0n) return `-${toHex(-v)}`;
  const hex = v.toString(16);
  return `0x${hex.length % 2 === 1 ? '0' : ''}${hex}`;
}

/** Number-like byte arrays ethers reads as big-endian hex (`isBytes`). */
function isBytes(value: unknown): value is ArrayLike<number> {
  if (value === null || value === undefined) return false;
  if ((value as object).constructor === Uint8Array) return true;
  if (typeof value === 'string') return false;
  const length = (value as { length?: unknown }).length;
  if (typeof length !== 'number' || !Number.isInteger(length) || length < 0) return false;
  for (let i = 0; i < length; i++) {
    const b = (value as ArrayLike<unknown>)[i];
    if (typeof b !== 'number' || !Number.isInteger(b) || b < 0 || b >= 256) return false;
  }
  return true;
}

/** A value as BigNumber arithmetic reads it (`toBN` in ethers). */
function toBigInt(value: unknown): bigint {
  if (value instanceof BigNumber) return value.toBigInt();
  const read = readValue(value);
  return typeof read === 'bigint' ? read : hexValue(read);
}

/** The value of ethers' hex text (`-0x…` for negatives). */
const hexValue = (hex: string): bigint => (hex.startsWith('-') ? -BigInt(hex.slice(1)) : BigInt(hex));

/**
 * `BigNumber.from`'s reading of a value, rule for rule as in ethers v5: ethers' hex text (its
 * `toHex` of the string, letters' case kept) where the value comes down to a hex string, else the
 * value.
 */
function readValue(value: unknown): bigint | string {
  if (typeof value === 'string') {
    // ethers matches `0X` too, then fails in BN.js on the `X`
    if (/^-?0x[0-9a-fA-F]+$/.test(value)) return ethersHex(value);
    if (/^-?[0-9]+$/.test(value)) return BigInt(value);
    throw new TypeError(`invalid BigNumber string (argument="value", value=${JSON.stringify(value)}, code=INVALID_ARGUMENT)`);
  }
  if (typeof value === 'number') {
    if (value % 1) fault('underflow', 'BigNumber.from');
    if (value >= MAX_SAFE || value <= -MAX_SAFE) fault('overflow', 'BigNumber.from');
    return readValue(String(value));
  }
  if (typeof value === 'bigint') return value;
  if (isBytes(value)) return readValue(`0x${Array.from(value, (b) => b.toString(16).padStart(2, '0')).join('')}`);
  if (value) {
    const v = value as { toHexString?: unknown; _hex?: unknown; type?: unknown; hex?: unknown };
    if (v.toHexString) {
      const hex = (v.toHexString as () => unknown).call(value);
      if (typeof hex === 'string') return readValue(hex);
    } else {
      // ethers' legacy `_hex` form and its own toJSON form `{ type: 'BigNumber', hex }`
      const hex = v._hex ?? (v.type === 'BigNumber' ? v.hex : undefined);
      if (typeof hex === 'string' && (/^0x[0-9a-f]*$/i.test(hex) || (hex[0] === '-' && /^0x[0-9a-f]*$/i.test(hex.slice(1))))) return readValue(hex);
    }
  }
  throw new TypeError(`invalid BigNumber value (argument="value", value=${String(value)}, code=INVALID_ARGUMENT)`);
}

/** ethers' `toHex` of a hex string: even length, leading zero bytes dropped, no `-0x00`, case kept. */
function ethersHex(text: string): string {
  if (text.startsWith('-')) {
    const positive = ethersHex(text.slice(1));
    return positive === '0x00' ? positive : `-${positive}`;
  }
  let hex = text.length % 2 ? `0x0${text.slice(2)}` : text;
  while (hex.length > 4 && hex.startsWith('0x00')) hex = `0x${hex.slice(4)}`;
  return hex;
}

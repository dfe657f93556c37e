/**
 * An ethers-v5-style BigNumber over a native bigint: what SubQuery mappings get for decoded uint/int
 * arguments (`log.args.value.toBigInt()`, `.toString()`, `.add(…)`). ethers itself is not bundled
 * because it is large and only this class of it is needed; `_hex`/`_isBigNumber` are own properties
 * so a mapping's own ethers accepts these values (`BigNumber.from(x)`, `BigNumber.isBigNumber(x)`).
 */
export type BigNumberish = BigNumber | bigint | number | string | { _hex: string };

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export class BigNumber {
  readonly _hex: string;
  readonly _isBigNumber = true;
  readonly #v: bigint;

  private constructor(value: bigint) {
    this._hex = toHex(value);
    this.#v = value;
    Object.freeze(this);
  }

  static from(value: BigNumberish): BigNumber {
    if (value instanceof BigNumber) return value;
    return new BigNumber(toBigInt(value));
  }

  static isBigNumber(value: unknown): value is BigNumber {
    return !!value && (value as { _isBigNumber?: unknown })._isBigNumber === true;
  }

  private get v(): bigint {
    return this.#v;
  }

  toBigInt(): bigint {
    return this.v;
  }

  toString(): string {
    return this.v.toString();
  }

  toNumber(): number {
    const v = this.v;
    if (v > MAX_SAFE || v < -MAX_SAFE)
      throw new RangeError(`BigNumber ${v} is outside the safe integer range of a JavaScript number (overflow); use toBigInt()`);
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
    if (d === 0n) throw new RangeError('BigNumber division by zero');
    return new BigNumber(this.v / d);
  }
  mod(other: BigNumberish): BigNumber {
    const d = toBigInt(other);
    if (d === 0n) throw new RangeError('BigNumber division by zero');
    return new BigNumber(this.v % d);
  }
  pow(other: BigNumberish): BigNumber {
    const e = toBigInt(other);
    if (e < 0n) throw new RangeError('BigNumber negative power');
    return new BigNumber(this.v ** e);
  }
  abs(): BigNumber {
    const v = this.v;
    return v < 0n ? new BigNumber(-v) : this;
  }
  and(other: BigNumberish): BigNumber {
    return new BigNumber(this.v & toBigInt(other));
  }
  or(other: BigNumberish): BigNumber {
    return new BigNumber(this.v | toBigInt(other));
  }
  xor(other: BigNumberish): BigNumber {
    return new BigNumber(this.v ^ toBigInt(other));
  }
  shl(bits: number): BigNumber {
    return new BigNumber(this.v << BigInt(bits));
  }
  shr(bits: number): BigNumber {
    return new BigNumber(this.v >> BigInt(bits));
  }
  mask(bits: number): BigNumber {
    return new BigNumber(this.v & ((1n << BigInt(bits)) - 1n));
  }
  fromTwos(bits: number): BigNumber {
    return new BigNumber(BigInt.asIntN(bits, this.v));
  }
  toTwos(bits: number): BigNumber {
    return new BigNumber(BigInt.asUintN(bits, this.v));
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

/** ethers v5's hex form: minimal even-length, `-0x…` for negatives, `0x00` for zero. */
function toHex(v: bigint): string {
  if (v < 0n) return `-${toHex(-v)}`;
  const hex = v.toString(16);
  return `0x${hex.length % 2 === 1 ? '0' : ''}${hex}`;
}

function toBigInt(value: BigNumberish): bigint {
  if (typeof value === 'bigint') return value;
  if (typeof value === 'number') {
    if (!Number.isInteger(value)) throw new RangeError(`BigNumber cannot hold the fraction ${value}`);
    if (!Number.isSafeInteger(value))
      throw new RangeError(`BigNumber from the unsafe integer ${value} would lose precision (overflow); pass a string or bigint`);
    return BigInt(value);
  }
  if (typeof value === 'string') {
    const s = value.trim();
    if (s.startsWith('-0x') || s.startsWith('-0X')) return -BigInt(s.slice(1));
    if (!/^(0x[0-9a-fA-F]+|-?[0-9]+)$/.test(s)) throw new TypeError(`invalid BigNumber string "${value}"`);
    return BigInt(s);
  }
  if (value && typeof value === 'object' && typeof (value as { _hex?: unknown })._hex === 'string') return toBigInt((value as { _hex: string })._hex);
  if (value && typeof value === 'object' && typeof (value as { toHexString?: unknown }).toHexString === 'function') {
    return toBigInt((value as unknown as { toHexString(): string }).toHexString());
  }
  throw new TypeError(`invalid BigNumber value ${String(value)}`);
}

import { BigNumber as EthersBigNumber } from '@ethersproject/bignumber';
import type { ParamType } from '@ethersproject/abi';

/**
 * For differential tests against ethers v5 (what SubQuery's node decodes with): a view of a value
 * as a mapping can observe it, and values of any ABI parameter, made from a seed.
 */

/** Everything a mapping can tell about a decoded value. */
export function view(v: unknown): unknown {
  if (v === null || typeof v !== 'object') return [typeof v, v];
  const o = v as Record<string, unknown>;
  if (o._isBigNumber) return ['BigNumber', (v as { toString(): string }).toString(), o._hex, Object.keys(o)];
  if (o._isIndexed) return ['Indexed', Object.keys(o), o.hash, Object.isFrozen(o)];
  if (Array.isArray(v)) {
    const named = Object.keys(v).filter((k) => !/^\d+$/.test(k));
    return ['array', v.length, Object.isFrozen(v), v.map(view), named.map((k) => [k, view(o[k])]), JSON.stringify(v)];
  }
  return ['object', Object.keys(o).map((k) => [k, view(o[k])])];
}

/** A small deterministic generator, so a failure names a case that can be run again. */
export function generator(seed: number) {
  let s = seed >>> 0 || 1;
  const next = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 2 ** 32;
  };
  const int = (n: number) => Math.floor(next() * n);
  const hex = (bytes: number) => `0x${Array.from({ length: bytes }, () => int(256).toString(16).padStart(2, '0')).join('')}`;
  const value = (p: ParamType): unknown => {
    if (p.baseType === 'array') return Array.from({ length: p.arrayLength >= 0 ? p.arrayLength : int(3) }, () => value(p.arrayChildren));
    if (p.baseType === 'tuple') return p.components.map(value);
    if (p.type === 'address') return hex(20);
    if (p.type === 'bool') return int(2) === 1;
    if (p.type === 'string') return ['', 'ok', 'héllo ✓', 'x'.repeat(40)][int(4)];
    if (p.type === 'bytes') return hex(int(70));
    const fixed = /^bytes(\d+)$/.exec(p.type);
    if (fixed) return hex(Number(fixed[1]));
    const m = /^(u?)int(\d+)$/.exec(p.type)!;
    const bits = BigInt(m[2]!);
    const edge = [0n, 1n, (1n << bits) - 1n, 1n << (bits - 1n), (1n << (bits - 1n)) - 1n][int(5)]!;
    const random = BigInt(hex(Number(bits) / 8)) & ((1n << bits) - 1n);
    const unsigned = int(2) === 0 ? edge : random;
    const v = m[1] === 'u' ? unsigned : BigInt.asIntN(Number(bits), unsigned);
    return EthersBigNumber.from(v.toString());
  };
  return { value };
}

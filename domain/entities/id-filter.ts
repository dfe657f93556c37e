/**
 * A set of strings that may answer "maybe" for one it does not hold, never "no" for one it holds (a
 * Bloom filter, in layers that double in size as it fills): `mightHold(id) === false` proves `id` was
 * never added. At least 10 bits an id: at most about 1 % of absent ids answered "maybe". Past `maxBits` it stops
 * knowing (`mightHold` is always true): the memory stays bounded, and "maybe" is always safe.
 */
export interface IdFilter {
  /** adds `id`; whether it might have held it already (one hashing for both) */
  add(id: string): boolean;
  mightHold(id: string): boolean;
}

/** bits per id, and hashes per id: ~1 % false "maybe" (k = bits × ln 2) */
const BITS_PER_ID = 10;
const HASHES = 7;

/** 1 MiB of bits: 507,904 ids, in layers of 16,384 × 2^k ids (each rounded up to a power of two of bits, so 10–16 bits an id) */
export const ID_FILTER_MAX_BITS = 8 * 2 ** 20;

interface Layer {
  bits: Uint32Array;
  /** bits.length × 32 − 1: a power of two minus one */
  mask: number;
  capacity: number;
  count: number;
}

export function createIdFilter(maxBits = ID_FILTER_MAX_BITS, firstCapacity = 16_384): IdFilter {
  const layers: Layer[] = [];
  let usedBits = 0;
  let full = false;
  const addLayer = (capacity: number): Layer | undefined => {
    const size = 2 ** Math.ceil(Math.log2(capacity * BITS_PER_ID));
    if (usedBits + size > maxBits) return undefined;
    usedBits += size;
    const layer = { bits: new Uint32Array(size / 32), mask: size - 1, capacity, count: 0 };
    layers.push(layer);
    return layer;
  };
  return {
    add(id) {
      if (full) return true;
      const [h1, h2] = hashPair(id);
      for (const layer of layers) if (holds(layer, h1, h2)) return true;
      let top = layers.at(-1);
      if (top === undefined || top.count >= top.capacity) {
        top = addLayer(top === undefined ? firstCapacity : top.capacity * 2);
        if (top === undefined) {
          full = true;
          layers.length = 0;
          return false;
        }
      }
      for (let i = 0; i < HASHES; i++) {
        const bit = (h1 + i * h2) & top.mask;
        top.bits[bit >>> 5]! |= 1 << (bit & 31);
      }
      top.count++;
      return false;
    },
    mightHold(id) {
      if (full) return true;
      if (layers.length === 0) return false;
      const [h1, h2] = hashPair(id);
      for (const layer of layers) if (holds(layer, h1, h2)) return true;
      return false;
    },
  };
}

function holds(layer: Layer, h1: number, h2: number): boolean {
  for (let i = 0; i < HASHES; i++) {
    const bit = (h1 + i * h2) & layer.mask;
    if ((layer.bits[bit >>> 5]! & (1 << (bit & 31))) === 0) return false;
  }
  return true;
}

const pair: [number, number] = [0, 0];

/** Two 32-bit hashes of the UTF-16 code units (FNV-1a, and a multiply-xorshift), the second odd. Reused array: read at once. */
function hashPair(s: string): [number, number] {
  let a = 0x811c9dc5;
  let b = 0x9747b28c;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193);
    b = Math.imul(b ^ c, 0x5bd1e995);
    b ^= b >>> 15;
  }
  a ^= a >>> 16;
  a = Math.imul(a, 0x85ebca6b);
  a ^= a >>> 13;
  b = Math.imul(b ^ (b >>> 13), 0xc2b2ae35);
  b ^= b >>> 16;
  pair[0] = a >>> 0;
  pair[1] = (b | 1) >>> 0;
  return pair;
}

import { hexToBytes, keccak256 } from 'viem/utils';
import type { EthLog, LogQuery } from './chain-data.ts';

/**
 * The 2048-bit bloom filter of Ethereum block headers and receipts (yellow paper, M3:2048): each
 * log's address and topics set 3 bits, taken from the first 6 bytes of their keccak256. A value
 * whose bits are not all set is certainly not in the block's logs; one whose bits are all set
 * probably is (false positives happen, false negatives never).
 */
export type Bloom = Uint8Array;

export const BLOOM_BYTES = 256;

/** The 3 bit positions of a value (a 0x-hex address or topic), as [byte index, mask] pairs. */
export type BloomBits = readonly [number, number, number, number, number, number];

export function bloomBits(value: string): BloomBits {
  const h = keccak256(hexToBytes(value as `0x${string}`), 'bytes');
  const out: number[] = [];
  for (let i = 0; i < 6; i += 2) {
    const bit = ((h[i]! << 8) | h[i + 1]!) & 2047;
    out.push(BLOOM_BYTES - 1 - (bit >> 3), 1 << (bit & 7));
  }
  return out as unknown as BloomBits;
}

export function parseBloom(hex: string): Bloom {
  const bytes = hexToBytes(hex as `0x${string}`);
  if (bytes.length !== BLOOM_BYTES) throw new Error(`a logs bloom has ${BLOOM_BYTES} bytes, not ${bytes.length}`);
  return bytes;
}

export function bloomHas(bloom: Bloom, bits: BloomBits): boolean {
  return (bloom[bits[0]]! & bits[1]) !== 0 && (bloom[bits[2]]! & bits[3]) !== 0 && (bloom[bits[4]]! & bits[5]) !== 0;
}

/**
 * Bloom bits by value: logs repeat the same addresses, event topics and accounts, and hashing
 * (some 20 µs a value in JavaScript) is the whole cost of the check. Emptied when `max` values
 * are held, to bound memory.
 */
export function createBloomBitsCache(max = 50_000): (value: string) => BloomBits {
  const cache = new Map<string, BloomBits>();
  return (value) => {
    let bits = cache.get(value);
    if (bits === undefined) {
      if (cache.size >= max) cache.clear();
      cache.set(value, (bits = bloomBits(value)));
    }
    return bits;
  };
}

/** The bloom of these logs, as a block header or receipt carries it. */
export function logsBloom(logs: readonly Pick<EthLog, 'address' | 'topics'>[], bitsOf: (value: string) => BloomBits = bloomBits): Bloom {
  const bloom = new Uint8Array(BLOOM_BYTES);
  const set = (b: BloomBits) => {
    bloom[b[0]] |= b[1];
    bloom[b[2]] |= b[3];
    bloom[b[4]] |= b[5];
  };
  for (const log of logs) {
    set(bitsOf(log.address));
    for (const t of log.topics) set(bitsOf(t));
  }
  return bloom;
}

/** Whether the address and every topic of `log` are in `bloom`: false means the log is not in that block. */
export function bloomHasLog(bloom: Bloom, log: Pick<EthLog, 'address' | 'topics'>, bitsOf: (value: string) => BloomBits = bloomBits): boolean {
  return bloomHas(bloom, bitsOf(log.address)) && log.topics.every((t) => bloomHas(bloom, bitsOf(t)));
}

/**
 * Whether a block with this bloom may hold a log `query` matches: one of its addresses (if any are
 * named) and, per topic position, one of the listed values. False means `eth_getLogs` must answer
 * no log of that block.
 */
export function bloomAdmits(bloom: Bloom, query: Pick<LogQuery, 'address' | 'topics'>, bitsOf: (value: string) => BloomBits = bloomBits): boolean {
  if (bloom.every((b) => b === 0)) return false;
  if (query.address !== undefined && !query.address.some((a) => bloomHas(bloom, bitsOf(a)))) return false;
  for (const position of query.topics ?? []) {
    if (position !== null && !position.some((t) => bloomHas(bloom, bitsOf(t)))) return false;
  }
  return true;
}

export function sameBloom(a: Bloom, b: Bloom): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

import { IdxError } from '../../domain/errors.ts';

/**
 * JSON-RPC quantities are 0x-prefixed hex without leading zeros ("0x0", "0x1b4"). We read them
 * leniently (leading zeros, upper case) because providers differ, and write them strictly.
 */
const QUANTITY = /^0x[0-9a-fA-F]+$/;

export function hexToBigInt(hex: unknown, what = 'quantity'): bigint {
  if (typeof hex !== 'string' || !QUANTITY.test(hex)) throw badHex(hex, what);
  return BigInt(hex);
}

/** For heights, indexes, timestamps: throws when the value would lose precision as a number. */
export function hexToNumber(hex: unknown, what = 'quantity'): number {
  const n = hexToBigInt(hex, what);
  if (n > BigInt(Number.MAX_SAFE_INTEGER)) throw new IdxError('RPC_BAD_RESPONSE', `${what} ${String(hex)} is too large for a number`);
  return Number(n);
}

export function toQuantity(value: number | bigint): string {
  if (typeof value === 'number' && (!Number.isSafeInteger(value) || value < 0))
    throw new IdxError('INVALID_QUANTITY', `${value} is not a non-negative integer`);
  if (typeof value === 'bigint' && value < 0n) throw new IdxError('INVALID_QUANTITY', `${value} is negative`);
  return `0x${value.toString(16)}`;
}

/** Hashes, addresses and data: lowercase, as the domain keeps them. */
export function toLowerHex(hex: unknown, what = 'hex value'): string {
  if (typeof hex !== 'string' || !/^0x[0-9a-fA-F]*$/.test(hex)) throw badHex(hex, what);
  return hex.toLowerCase();
}

function badHex(value: unknown, what: string): IdxError {
  const shown = typeof value === 'string' ? JSON.stringify(value) : typeof value === 'object' && value !== null ? 'an object' : String(value);
  return new IdxError('RPC_BAD_RESPONSE', `expected ${what} as 0x-prefixed hex, got ${shown}`);
}

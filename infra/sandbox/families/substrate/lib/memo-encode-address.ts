import { encodeAddress as encodeOnce } from '@polkadot/util-crypto/address/encode';

/**
 * `encodeAddress` remembering its answers. Every `toString()` of an AccountId encodes it anew
 * (base58 in JavaScript and a blake2b-512 checksum, ~50 µs), and mappings print the same few
 * accounts over and over. The bundle puts this in place of `@polkadot/util-crypto`'s own export
 * (bundle-prelude.ts). Bounded: forgotten all at once when full.
 */
const MAX_ENTRIES = 65_536;
const memo = new Map<string, string>();

export function encodeAddress(key: Uint8Array | string, ss58Format?: number): string {
  if (!(key instanceof Uint8Array) || key.length > 64) return encodeOnce(key, ss58Format);
  const id = `${ss58Format ?? ''}:${String.fromCharCode.apply(null, key as unknown as number[])}`;
  let address = memo.get(id);
  if (address === undefined) {
    address = encodeOnce(key, ss58Format);
    if (memo.size >= MAX_ENTRIES) memo.clear();
    memo.set(id, address);
  }
  return address;
}

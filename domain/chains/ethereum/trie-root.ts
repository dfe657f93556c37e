import { keccak256 } from 'viem/utils';
import { integerBytes, rlpBytes, rlpList } from './rlp.ts';

/** keccak256(rlp("")): the root of a trie without entries (a block without transactions). */
export const EMPTY_TRIE_ROOT = '0x56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421';

/**
 * The Merkle-Patricia trie root of a list, as block headers commit to transactions and receipts:
 * the i-th value under the key rlp(i) (yellow paper, appendix D). Built from the sorted keys in
 * one pass, without storing nodes.
 */
export function orderedTrieRoot(values: readonly Uint8Array[]): string {
  if (values.length === 0) return EMPTY_TRIE_ROOT;
  const entries = values.map((value, i) => ({ key: nibbles(rlpBytes(integerBytes(i))), value }));
  entries.sort((a, b) => compare(a.key, b.key));
  return keccak256(node(entries, 0));
}

interface Entry {
  key: Uint8Array;
  value: Uint8Array;
}

/** The encoding of the node holding `entries` (sorted, sharing their first `depth` nibbles). */
function node(entries: readonly Entry[], depth: number): Uint8Array {
  if (entries.length === 1) {
    const e = entries[0]!;
    return rlpList([rlpBytes(compactPath(e.key.subarray(depth), true)), rlpBytes(e.value)]);
  }
  const first = entries[0]!.key;
  const last = entries[entries.length - 1]!.key;
  // sorted: what the first and last keys share, all do
  let shared = 0;
  while (depth + shared < first.length && depth + shared < last.length && first[depth + shared] === last[depth + shared]) shared++;
  if (shared > 0) {
    return rlpList([rlpBytes(compactPath(first.subarray(depth, depth + shared), false)), reference(node(entries, depth + shared))]);
  }
  const slots: Uint8Array[] = [];
  let value: Uint8Array = new Uint8Array(0);
  let i = 0;
  if (first.length === depth) value = entries[i++]!.value;
  for (let nibble = 0; nibble < 16; nibble++) {
    const start = i;
    while (i < entries.length && entries[i]!.key[depth] === nibble) i++;
    slots.push(i === start ? rlpBytes(new Uint8Array(0)) : reference(node(entries.slice(start, i), depth + 1)));
  }
  return rlpList([...slots, rlpBytes(value)]);
}

/** How a node refers to a child: by its encoding when shorter than a hash, else by its hash. */
function reference(encoded: Uint8Array): Uint8Array {
  return encoded.length < 32 ? encoded : rlpBytes(keccak256(encoded, 'bytes'));
}

/** Hex-prefix encoding of a path (yellow paper, appendix C): a flag nibble for odd length and leaf. */
function compactPath(path: Uint8Array, leaf: boolean): Uint8Array {
  const flag = (leaf ? 2 : 0) + (path.length % 2);
  const all = path.length % 2 === 1 ? [flag, ...path] : [flag, 0, ...path];
  const out = new Uint8Array(all.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = (all[2 * i]! << 4) | all[2 * i + 1]!;
  return out;
}

function nibbles(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(bytes.length * 2);
  bytes.forEach((b, i) => {
    out[2 * i] = b >> 4;
    out[2 * i + 1] = b & 15;
  });
  return out;
}

function compare(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return a.length - b.length;
}

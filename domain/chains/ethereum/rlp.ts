/**
 * Recursive Length Prefix encoding, from already-encoded parts: a trie node embeds a child node's
 * encoding as it is (not as a byte string), which a value-tree encoder cannot express.
 */

/** The RLP of a byte string. */
export function rlpBytes(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 1 && bytes[0]! < 0x80) return bytes;
  return concat([lengthPrefix(0x80, bytes.length), bytes]);
}

/** The RLP of a list whose items are given already encoded. */
export function rlpList(encodedItems: readonly Uint8Array[]): Uint8Array {
  const body = concat(encodedItems);
  return concat([lengthPrefix(0xc0, body.length), body]);
}

/** A non-negative integer as RLP wants it: big-endian, no leading zero bytes (0 is the empty string). */
export function integerBytes(value: bigint | number): Uint8Array {
  let v = BigInt(value);
  if (v < 0n) throw new RangeError('RLP integers are non-negative');
  const out: number[] = [];
  while (v > 0n) {
    out.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  return Uint8Array.from(out);
}

function lengthPrefix(offset: number, length: number): Uint8Array {
  if (length < 56) return Uint8Array.of(offset + length);
  const len = integerBytes(length);
  return Uint8Array.of(offset + 55 + len.length, ...len);
}

export function concat(parts: readonly Uint8Array[]): Uint8Array {
  let size = 0;
  for (const p of parts) size += p.length;
  const out = new Uint8Array(size);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/**
 * Bytes received on a socket, kept as the chunks they came in: a message is copied out once when
 * it is whole, so a large message streamed in small chunks costs linear time, where joining the
 * buffer on every chunk cost the square of its size.
 */
export interface ChunkQueue {
  /** bytes held */
  readonly length: number;
  push(chunk: Buffer): void;
  /** the byte at `offset` (< length) */
  byteAt(offset: number): number;
  /** the big-endian int32 at `offset` (offset + 4 <= length) */
  int32At(offset: number): number;
  /** removes and returns the first `n` bytes (n <= length), as one Buffer */
  take(n: number): Buffer;
}

const EMPTY = Buffer.alloc(0);

export function createChunkQueue(): ChunkQueue {
  let chunks: Buffer[] = [];
  // chunks before `first` are spent (dropped in bulk, not shifted one by one); `head` bytes of chunks[first] too
  let first = 0;
  let head = 0;
  let length = 0;

  function byteAt(offset: number): number {
    let at = offset + head;
    for (let i = first; i < chunks.length; i++) {
      const c = chunks[i]!;
      if (at < c.length) return c[at]!;
      at -= c.length;
    }
    throw new RangeError(`byte ${offset} of ${length}`);
  }

  function drop(): void {
    chunks[first] = EMPTY;
    first++;
    head = 0;
    if (first === chunks.length) {
      chunks = [];
      first = 0;
    } else if (first >= 1024 && first * 2 >= chunks.length) {
      chunks = chunks.slice(first);
      first = 0;
    }
  }

  return {
    get length() {
      return length;
    },
    push(chunk) {
      if (chunk.length === 0) return;
      chunks.push(chunk);
      length += chunk.length;
    },
    byteAt,
    int32At(offset) {
      const c = chunks[first];
      if (c !== undefined && head + offset + 4 <= c.length) return c.readInt32BE(head + offset);
      return (byteAt(offset) << 24) | (byteAt(offset + 1) << 16) | (byteAt(offset + 2) << 8) | byteAt(offset + 3) | 0;
    },
    take(n) {
      if (n > length) throw new RangeError(`take ${n} of ${length}`);
      const c0 = chunks[first];
      // the common case: the message lies within the first chunk
      if (c0 !== undefined && head + n <= c0.length) {
        const out = c0.subarray(head, head + n);
        head += n;
        length -= n;
        if (head === c0.length) drop();
        return out;
      }
      const out = Buffer.allocUnsafe(n);
      let filled = 0;
      while (filled < n) {
        const c = chunks[first]!;
        const part = Math.min(c.length - head, n - filled);
        c.copy(out, filled, head, head + part);
        filled += part;
        head += part;
        if (head === c.length) drop();
      }
      length -= n;
      return out;
    },
  };
}

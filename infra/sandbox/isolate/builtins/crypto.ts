import { Buffer } from 'buffer';
import type { Bridge } from '../wire.ts';

/**
 * `crypto` for mappings: hashing and random bytes run in the host's node:crypto (one synchronous
 * crossing per `digest()`), because a faithful pure-JS copy of every algorithm would be large and
 * slow. Only what mappings use is here.
 */
type Encoding = 'hex' | 'base64' | 'base64url' | 'latin1' | 'binary' | 'utf8' | 'utf-8';

function toBytes(data: unknown, encoding?: Encoding): Uint8Array {
  if (typeof data === 'string') return Buffer.from(data, encoding ?? 'utf8');
  if (data instanceof Uint8Array) return data;
  if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
  if (data instanceof ArrayBuffer) return new Uint8Array(data);
  throw new TypeError(`The "data" argument must be a string, Buffer, TypedArray or DataView; received ${typeof data}`);
}

export function createCrypto(bridge: Pick<Bridge, 'callSync'>) {
  class Hash {
    private chunks: Uint8Array[] = [];
    private done = false;

    constructor(
      private readonly algorithm: string,
      private readonly key: Uint8Array | null,
    ) {}

    update(data: unknown, encoding?: Encoding): this {
      if (this.done) throw new Error('Digest already called');
      this.chunks.push(toBytes(data, encoding));
      return this;
    }

    digest(encoding?: Encoding): Buffer | string {
      if (this.done) throw new Error('Digest already called');
      this.done = true;
      const out = Buffer.from(bridge.callSync('hash', [this.algorithm, this.key, Buffer.concat(this.chunks)]) as Uint8Array);
      return encoding === undefined ? out : out.toString(encoding);
    }

    copy(): Hash {
      const h = new Hash(this.algorithm, this.key);
      h.chunks = [...this.chunks];
      return h;
    }
  }

  const randomBytes = (size: number, callback?: (err: Error | null, buf: Buffer) => void): Buffer | undefined => {
    const buf = Buffer.from(bridge.callSync('randomBytes', [size]) as Uint8Array);
    if (callback === undefined) return buf;
    callback(null, buf);
    return undefined;
  };

  return {
    createHash: (algorithm: string) => new Hash(algorithm, null),
    createHmac: (algorithm: string, key: unknown) => new Hash(algorithm, toBytes(key)),
    randomBytes,
    randomUUID: () => bridge.callSync('randomUUID', []) as string,
    getRandomValues: <T extends ArrayBufferView>(array: T): T => {
      const bytes = bridge.callSync('randomBytes', [array.byteLength]) as Uint8Array;
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(bytes);
      return array;
    },
  };
}

import { Buffer } from 'buffer';

/** UTF-8 `TextEncoder`/`TextDecoder`: web globals that V8 alone lacks and bundled libraries (viem) use. */
export class TextEncoder {
  readonly encoding = 'utf-8';

  encode(input = ''): Uint8Array {
    const b = Buffer.from(String(input), 'utf8');
    return new Uint8Array(b.buffer, b.byteOffset, b.length);
  }
}

export class TextDecoder {
  readonly encoding = 'utf-8';

  constructor(label = 'utf-8') {
    if (!/^utf-?8$/i.test(label)) throw new RangeError(`TextDecoder: only utf-8 is available in the sandbox, not "${label}"`);
  }

  decode(input?: ArrayBufferView | ArrayBuffer): string {
    if (input === undefined) return '';
    const bytes = ArrayBuffer.isView(input) ? new Uint8Array(input.buffer, input.byteOffset, input.byteLength) : new Uint8Array(input);
    return Buffer.from(bytes).toString('utf8');
  }
}

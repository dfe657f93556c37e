/**
 * Human-readable event/function signatures as SubQuery manifests write them, e.g.
 * `Transfer(address indexed from, address indexed to, uint256 amount)` or `approve(address,uint256)`.
 * Parsed by hand because the canonical form (`Transfer(address,address,uint256)`) is all we need,
 * and the domain takes no ABI library.
 */

export interface AbiSignature {
  name: string;
  /** canonical input types, e.g. `['address', 'uint256', '(uint256,address)[]']` */
  inputs: string[];
  /** `name(type,type)`: what keccak256 hashes into a topic or selector */
  canonical: string;
}

const IDENT = /^[A-Za-z_$][A-Za-z0-9_$]*/;
// Words that may follow a type and are not part of the canonical form.
const PARAM_MODIFIERS = new Set(['indexed', 'memory', 'calldata', 'storage', 'payable']);
const TRAILING_MODIFIERS = new Set([
  'anonymous',
  'external',
  'public',
  'internal',
  'private',
  'view',
  'pure',
  'payable',
  'nonpayable',
  'constant',
  'virtual',
  'override',
]);

/** Parses a signature; returns `{ error }` with a short reason when it is not one. */
export function parseAbiSignature(text: string): AbiSignature | { error: string } {
  const p = new Parser(text);
  try {
    p.skipSpace();
    let name = p.ident();
    if (name === 'event' || name === 'function') {
      p.skipSpace();
      if (p.peek() !== '(') name = p.ident();
    }
    if (name === undefined) return { error: 'expected a name like Transfer(…)' };
    p.skipSpace();
    const inputs = p.params();
    p.trailing();
    return { name, inputs, canonical: `${name}(${inputs.join(',')})` };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

class Parser {
  private pos = 0;
  constructor(private readonly text: string) {}

  peek(): string {
    return this.text[this.pos] ?? '';
  }

  skipSpace(): void {
    while (/\s/.test(this.peek())) this.pos++;
  }

  ident(): string | undefined {
    const m = IDENT.exec(this.text.slice(this.pos));
    if (!m) return undefined;
    this.pos += m[0].length;
    return m[0];
  }

  expect(ch: string): void {
    this.skipSpace();
    if (this.peek() !== ch) throw new Error(`expected "${ch}" at character ${this.pos + 1}`);
    this.pos++;
  }

  /** `( param, param, … )` */
  params(): string[] {
    this.expect('(');
    const types: string[] = [];
    this.skipSpace();
    if (this.peek() === ')') {
      this.pos++;
      return types;
    }
    for (;;) {
      types.push(this.param());
      this.skipSpace();
      if (this.peek() === ',') {
        this.pos++;
        continue;
      }
      this.expect(')');
      return types;
    }
  }

  /** `type [indexed|memory|…] [name]` */
  param(): string {
    const type = this.type();
    let named = false;
    for (;;) {
      this.skipSpace();
      const start = this.pos;
      const word = this.ident();
      if (word === undefined) break;
      if (PARAM_MODIFIERS.has(word)) continue;
      if (named) {
        this.pos = start;
        throw new Error(`unexpected "${word}" at character ${start + 1}`);
      }
      named = true;
    }
    return type;
  }

  type(): string {
    this.skipSpace();
    let base: string;
    if (this.peek() === '(') {
      base = `(${this.params().join(',')})`;
    } else {
      const start = this.pos;
      const word = this.ident();
      if (word === undefined) throw new Error(`expected a type at character ${start + 1}`);
      if (word === 'tuple') {
        this.skipSpace();
        base = `(${this.params().join(',')})`;
      } else {
        base = canonicalElementaryType(word);
        if (base === '') throw new Error(`unknown type "${word}"`);
      }
    }
    for (;;) {
      const m = /^\s*\[\s*([0-9]*)\s*\]/.exec(this.text.slice(this.pos));
      if (!m) return base;
      this.pos += m[0].length;
      base += `[${m[1]}]`;
    }
  }

  /** Anything after the inputs: `anonymous`, `view`, `returns (uint256)` and the like. */
  trailing(): void {
    for (;;) {
      this.skipSpace();
      if (this.pos >= this.text.length) return;
      const start = this.pos;
      const word = this.ident();
      if (word === 'returns') {
        this.params();
      } else if (word === undefined || !TRAILING_MODIFIERS.has(word)) {
        throw new Error(`unexpected "${this.text.slice(start)}" after the parameters`);
      }
    }
  }
}

/** The canonical spelling of an elementary type, or '' when the word is not one. */
function canonicalElementaryType(word: string): string {
  if (word === 'uint' || word === 'int') return `${word}256`;
  if (word === 'fixed' || word === 'ufixed') return `${word}128x18`;
  if (word === 'address' || word === 'bool' || word === 'string' || word === 'bytes' || word === 'function') return word;
  const int = /^u?int([1-9][0-9]*)$/.exec(word);
  if (int) {
    const bits = Number(int[1]);
    return bits >= 8 && bits <= 256 && bits % 8 === 0 ? word : '';
  }
  const bytes = /^bytes([1-9][0-9]*)$/.exec(word);
  if (bytes) {
    const n = Number(bytes[1]);
    return n >= 1 && n <= 32 ? word : '';
  }
  return /^u?fixed[0-9]+x[0-9]+$/.test(word) ? word : '';
}

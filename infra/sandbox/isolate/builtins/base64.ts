import { Buffer } from 'buffer';

/**
 * `atob` and `btoa` as Node's (the globals of SubQuery's sandbox): WHATWG's forgiving base64, which throws on what is
 * not base64, where a plain `Buffer.from(s, 'base64')` skips what it cannot read. Mappings test strings with them:
 * SubQuery's ethscriptions starter keeps a `;base64` data URI only when `atob` accepts its data.
 */
export function atob(...args: unknown[]): string {
  if (args.length === 0) throw missingInput();
  const text = `${args[0] as string}`;
  // ASCII whitespace is skipped anywhere; `=` may only close the data, at most two of them
  let data = 0;
  let padding = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (c === ' ' || c === '\t' || c === '\n' || c === '\f' || c === '\r') continue;
    if (c === '=') padding++;
    else if (padding > 0 || !BASE64_CHAR.test(c)) throw invalidCharacter('Invalid character');
    else data++;
  }
  // in Node's order (its simdutf decoder): too much padding, then a lone last character, then padding that does not fill the last four
  if (padding > 2) throw invalidCharacter('Invalid character');
  if (data % 4 === 1) throw invalidCharacter('The string to be decoded is not correctly encoded.');
  if (padding > 0 && (data + padding) % 4 !== 0) throw invalidCharacter('Invalid character');
  return Buffer.from(text.replace(/[\t\n\f\r =]/g, ''), 'base64').toString('latin1');
}

const BASE64_CHAR = /^[A-Za-z0-9+/]$/;

export function btoa(...args: unknown[]): string {
  if (args.length === 0) throw missingInput();
  const text = `${args[0] as string}`;
  // one byte per character: a character beyond U+00FF has no byte
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0xff) throw invalidCharacter('Invalid character');
  return Buffer.from(text, 'latin1').toString('base64');
}

/** Node throws a DOMException of this name and code; the sandbox has no DOMException, so an Error that reads alike. */
function invalidCharacter(message: string): Error {
  return Object.assign(new Error(message), { name: 'InvalidCharacterError', code: 5 });
}

function missingInput(): TypeError {
  return Object.assign(new TypeError('The "input" argument must be specified'), { code: 'ERR_MISSING_ARGS' });
}

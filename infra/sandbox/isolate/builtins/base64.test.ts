import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import t from 'tap';
import { atob, btoa } from './base64.ts';

// the reference: Node's own globals, which SubQuery's sandbox hands its mappings
const nodeAtob = globalThis.atob;
const nodeBtoa = globalThis.btoa;

/** what a call gives: its value, or the error's name and message */
function outcome(fn: () => string): { value: string } | { name: string; message: string } {
  try {
    return { value: fn() };
  } catch (err) {
    return { name: (err as Error).name, message: (err as Error).message };
  }
}

// base64's alphabet, padding, whitespace (skipped), other ASCII, and characters beyond one byte
const chars = fc.constantFrom(
  ...'AZaz09+/=',
  '=',
  '=',
  ' ',
  '\t',
  '\n',
  '\f',
  '\r',
  '\v',
  '-',
  '_',
  '.',
  '*',
  '\u0000',
  '\u00e9',
  '\u00ff',
  '\u0100',
  '\u20ac',
  '😀',
);
const base64ish = fc.oneof(
  fc.string({ unit: chars, maxLength: 24 }),
  // real base64 with whitespace and padding taken away or added
  fc.tuple(fc.uint8Array({ maxLength: 20 }), fc.nat(3), fc.string({ unit: fc.constantFrom(' ', '\n', '='), maxLength: 3 })).map(
    ([bytes, cut, extra]) =>
      Buffer.from(bytes)
        .toString('base64')
        .slice(0, Math.max(0, Buffer.from(bytes).toString('base64').length - cut)) + extra,
  ),
);

t.test("atob: the value or the error of Node's atob, for any string", async (t) => {
  // one assertion for the generated strings: fast-check's error names the first string that differs
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(base64ish, (s) =>
          isDeepStrictEqual(
            outcome(() => atob(s)),
            outcome(() => nodeAtob(s)),
          ),
        ),
        { numRuns: 3000 },
      ),
    '3,000 generated strings',
  );
  for (const s of ['aGVsbG8=', 'aGVsbG8', '!!not base64!!', 'ab=c', 'a===', 'abc==', 'YR', ' aGVs\nbG8= ', '', 'a', '=', '==']) {
    t.same(
      outcome(() => atob(s)),
      outcome(() => nodeAtob(s)),
      JSON.stringify(s),
    );
  }
  // not strings: made strings first, as Node does
  for (const v of [null, undefined, 12, true, { toString: () => 'YQ==' }]) {
    t.same(
      outcome(() => atob(v as string)),
      outcome(() => nodeAtob(v as string)),
      String(v),
    );
  }
  t.same(
    outcome(() => (atob as () => string)()),
    { name: 'TypeError', message: 'The "input" argument must be specified' },
    'no argument',
  );
});

t.test("btoa: the value or the error of Node's btoa, for any string", async (t) => {
  t.doesNotThrow(
    () =>
      fc.assert(
        fc.property(fc.string({ unit: chars, maxLength: 24 }), (s) =>
          isDeepStrictEqual(
            outcome(() => btoa(s)),
            outcome(() => nodeBtoa(s)),
          ),
        ),
        { numRuns: 2000 },
      ),
    '2,000 generated strings',
  );
  t.same(
    outcome(() => atob(btoa('\u0000\u00ff hello'))),
    { value: '\u0000\u00ff hello' },
    'a round trip',
  );
});

import t from 'tap';
import { BigNumber as EthersBigNumber } from '@ethersproject/bignumber';
import { BigNumber } from './big-number.ts';

/**
 * A differential test against ethers v5's own BigNumber, which SubQuery mappings get for decoded
 * integers: every constructor input, method and operand below gives the same value, or throws in
 * both. Messages differ and are not compared; values, their types and thrown-or-not are.
 */

type Outcome = { value: unknown } | { threw: true };

/** What a mapping can observe of a result: BigNumbers by their value and hex, other values as they are. */
function observed(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && (v as { _isBigNumber?: unknown })._isBigNumber === true) {
    const b = v as { toString(): string; _hex: string; toHexString(): string; toJSON(): unknown };
    return { bigNumber: b.toString(), _hex: b._hex, hex: b.toHexString(), json: b.toJSON(), keys: Object.keys(b) };
  }
  return typeof v === 'bigint' ? { bigint: v.toString() } : v;
}

function outcome(f: () => unknown): Outcome {
  try {
    return { value: observed(f()) };
  } catch {
    return { threw: true };
  }
}

const TWO = 2n;
const operands: bigint[] = [
  0n,
  1n,
  -1n,
  2n,
  -2n,
  3n,
  -7n,
  7n,
  255n,
  256n,
  -256n,
  BigInt(Number.MAX_SAFE_INTEGER),
  -BigInt(Number.MAX_SAFE_INTEGER),
  BigInt(Number.MAX_SAFE_INTEGER) + 1n,
  TWO ** 64n,
  -(TWO ** 64n) + 5n,
  10n ** 18n,
  TWO ** 255n - 1n,
  -(TWO ** 255n),
  TWO ** 256n - 1n,
];

/** Everything a mapping might hand to `BigNumber.from` (or to a method taking a BigNumberish). */
const inputs: [string, () => unknown][] = [
  ...operands.map((v): [string, () => unknown] => [`bigint ${v}`, () => v]),
  ...operands.map((v): [string, () => unknown] => [`decimal string ${v}`, () => v.toString()]),
  ...operands.map((v): [string, () => unknown] => [`hex string ${v}`, () => (v < 0n ? `-0x${(-v).toString(16)}` : `0x${v.toString(16)}`)]),
  ['number 0', () => 0],
  ['number -0', () => -0],
  ['number 42', () => 42],
  ['number -42', () => -42],
  ['number MAX_SAFE_INTEGER', () => Number.MAX_SAFE_INTEGER],
  ['number MAX_SAFE_INTEGER - 1', () => Number.MAX_SAFE_INTEGER - 1],
  ['number -MAX_SAFE_INTEGER', () => -Number.MAX_SAFE_INTEGER],
  ['number 2^53', () => 2 ** 53],
  ['number 1e21', () => 1e21],
  ['number 0.5', () => 0.5],
  ['number NaN', () => NaN],
  ['number Infinity', () => Infinity],
  ['string 0X1F', () => '0X1F'],
  ['string 0xABCdef', () => '0xABCdef'],
  ['string -0x0', () => '-0x0'],
  ['string 0x00ABC', () => '0x00ABC'],
  ['string -0x0001', () => '-0x0001'],
  ['string 0x0000', () => '0x0000'],
  ['string 0x', () => '0x'],
  ['string empty', () => ''],
  ['string " 12"', () => ' 12'],
  ['string "12 "', () => '12 '],
  ['string 1e3', () => '1e3'],
  ['string 12abc', () => '12abc'],
  ['string -', () => '-'],
  ['string +5', () => '+5'],
  ['string 007', () => '007'],
  ['string 1.5', () => '1.5'],
  ['{ _hex }', () => ({ _hex: '0x1f' })],
  ['{ _hex } negative', () => ({ _hex: '-0x1f' })],
  ['{ _hex } not hex', () => ({ _hex: 'zz' })],
  ['toJSON form { type, hex }', () => ({ type: 'BigNumber', hex: '0x2a' })],
  ['{ toHexString }', () => ({ toHexString: () => '0x2a' })],
  ['ethers BigNumber', () => EthersBigNumber.from(99)],
  ['Uint8Array', () => new Uint8Array([1, 2])],
  ['array of bytes', () => [1, 2]],
  ['null', () => null],
  ['undefined', () => undefined],
  ['true', () => true],
  ['object', () => ({})],
];

/** ethers' BigNumber where the input is one of ours, and ours where it is one of ethers': a mapping mixes both. */
const ours = (v: unknown) => (EthersBigNumber.isBigNumber(v) && !(v instanceof BigNumber) ? BigNumber.from(v.toHexString()) : v);

t.test('toString takes base 10 only, as in ethers v5', async (t) => {
  for (const radix of [[], [10], [16], [2], ['10']]) {
    t.same(
      outcome(() => (BigNumber.from(255n).toString as (...a: unknown[]) => string).apply(BigNumber.from(255n), radix)),
      outcome(() => (EthersBigNumber.from(255).toString as (...a: unknown[]) => string).apply(EthersBigNumber.from(255), radix)),
      `toString(${radix.join(', ')})`,
    );
  }
});

t.test('BigNumber.from gives the same value, or throws, for every input ethers v5 is given', async (t) => {
  for (const [name, make] of inputs) {
    t.same(
      outcome(() => BigNumber.from(ours(make()) as never)),
      outcome(() => EthersBigNumber.from(make() as never)),
      `from(${name})`,
    );
  }
});

t.test('each method gives the same result as ethers v5 for every pair of operands', async (t) => {
  const binary = ['add', 'sub', 'mul', 'div', 'mod', 'and', 'or', 'xor', 'eq', 'lt', 'lte', 'gt', 'gte'] as const;
  for (const a of operands) {
    for (const b of operands) {
      for (const m of binary) {
        t.same(
          outcome(() => (BigNumber.from(a) as unknown as Record<string, (x: unknown) => unknown>)[m]!(b)),
          outcome(() => (EthersBigNumber.from(a) as unknown as Record<string, (x: unknown) => unknown>)[m]!(b)),
          `${a}.${m}(${b})`,
        );
      }
    }
  }
});

t.test('operands given in every form ethers accepts act alike', async (t) => {
  for (const [name, make] of inputs) {
    for (const m of ['add', 'eq', 'mul'] as const) {
      t.same(
        outcome(() => (BigNumber.from(5n) as unknown as Record<string, (x: unknown) => unknown>)[m]!(ours(make()))),
        outcome(() => (EthersBigNumber.from(5) as unknown as Record<string, (x: unknown) => unknown>)[m]!(make())),
        `5.${m}(${name})`,
      );
    }
  }
});

t.test('powers, widths and shifts act as in ethers v5', async (t) => {
  const counts = [0, 1, 2, 7, 8, 53, 64, 255, 256, 300, -1];
  for (const a of operands) {
    for (const n of counts) {
      for (const m of ['pow', 'shl', 'shr', 'mask', 'fromTwos', 'toTwos'] as const) {
        // big powers of big numbers are slow and say nothing more
        if (m === 'pow' && n > 8 && (a > 1024n || a < -1024n)) continue;
        t.same(
          outcome(() => (BigNumber.from(a) as unknown as Record<string, (x: unknown) => unknown>)[m]!(n)),
          outcome(() => (EthersBigNumber.from(a) as unknown as Record<string, (x: unknown) => unknown>)[m]!(n)),
          `${a}.${m}(${n})`,
        );
      }
    }
  }
});

t.test('conversions and predicates act as in ethers v5', async (t) => {
  for (const a of operands) {
    for (const m of ['abs', 'isZero', 'isNegative', 'toNumber', 'toBigInt', 'toString', 'toHexString', 'toJSON'] as const) {
      t.same(
        outcome(() => (BigNumber.from(a) as unknown as Record<string, () => unknown>)[m]!()),
        outcome(() => (EthersBigNumber.from(a) as unknown as Record<string, () => unknown>)[m]!()),
        `${a}.${m}()`,
      );
    }
    t.same(
      outcome(() => BigNumber.from(a)),
      outcome(() => EthersBigNumber.from(a)),
      `${a} itself (hex, JSON, own keys)`,
    );
    t.same(JSON.stringify({ v: BigNumber.from(a) }), JSON.stringify({ v: EthersBigNumber.from(a) }), `JSON.stringify of ${a}`);
    t.equal(BigNumber.isBigNumber(BigNumber.from(a)), EthersBigNumber.isBigNumber(EthersBigNumber.from(a)), `isBigNumber(${a})`);
    t.ok(EthersBigNumber.isBigNumber(BigNumber.from(a)), `ethers takes our ${a} for one of its own`);
    t.equal(EthersBigNumber.from(BigNumber.from(a) as never).toString(), a.toString(), `ethers reads our ${a}`);
  }
  for (const v of [null, undefined, 0, '0x1', {}, { _isBigNumber: true }]) {
    t.equal(BigNumber.isBigNumber(v), EthersBigNumber.isBigNumber(v), `isBigNumber(${JSON.stringify(v)})`);
  }
});

import t from 'tap';
import { hexToBigInt, hexToNumber, toLowerHex, toQuantity } from './hex-quantity.ts';

t.test('reads quantities leniently and writes them strictly', async (t) => {
  t.equal(hexToNumber('0x0'), 0);
  t.equal(hexToNumber('0x1B4'), 436);
  t.equal(hexToNumber('0x00ff'), 255, 'leading zeros from lax providers');
  t.equal(hexToBigInt('0xde0b6b3a7640000'), 10n ** 18n);
  t.equal(hexToBigInt('0xffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff'), 2n ** 256n - 1n);
  t.equal(toQuantity(0), '0x0');
  t.equal(toQuantity(436), '0x1b4');
  t.equal(toQuantity(10n ** 18n), '0xde0b6b3a7640000');
  t.equal(toLowerHex('0xAbCd'), '0xabcd');
  t.equal(toLowerHex('0x'), '0x');
});

t.test('refuses what is not a quantity, and numbers that would lose precision', async (t) => {
  t.throws(() => hexToNumber('12'), { code: 'RPC_BAD_RESPONSE', message: 'expected quantity as 0x-prefixed hex, got "12"' });
  t.throws(() => hexToNumber('0x'), { code: 'RPC_BAD_RESPONSE' });
  t.throws(() => hexToNumber(undefined, 'block number'), { message: 'expected block number as 0x-prefixed hex, got undefined' });
  t.throws(() => hexToNumber(null, 'log index'), { message: 'expected log index as 0x-prefixed hex, got null' });
  t.throws(() => hexToNumber('0x20000000000000'), { message: /too large for a number/ });
  t.throws(() => toQuantity(-1), { code: 'INVALID_QUANTITY' });
  t.throws(() => toQuantity(1.5), { code: 'INVALID_QUANTITY' });
  t.throws(() => toQuantity(-1n), { code: 'INVALID_QUANTITY' });
  t.throws(() => toLowerHex('abc'), { code: 'RPC_BAD_RESPONSE' });
});

import t from 'tap';
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, keccak256, toHex } from 'viem/utils';
import type { Abi } from 'viem';
import { createAbiDecoder } from './abi-decoder.ts';
import { BigNumber } from './isolate/big-number.ts';
import { rebuildArgs } from './isolate/rebuild-args.ts';

const abi = [
  {
    type: 'event',
    name: 'Swap',
    inputs: [
      { indexed: true, name: 'sender', type: 'address' },
      { indexed: true, name: 'tag', type: 'string' },
      { indexed: false, name: 'amount0', type: 'int256' },
      { indexed: false, name: 'fee', type: 'uint24' },
      { indexed: false, name: 'note', type: 'string' },
      {
        indexed: false,
        name: 'pair',
        type: 'tuple',
        components: [
          { name: 'token', type: 'address' },
          { name: 'weights', type: 'uint256[]' },
        ],
      },
    ],
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { indexed: true, name: 'from', type: 'address' },
      { indexed: true, name: 'to', type: 'address' },
      { indexed: false, name: 'value', type: 'uint256' },
    ],
  },
  {
    type: 'event',
    name: 'Transfer',
    inputs: [
      { indexed: true, name: 'from', type: 'address' },
      { indexed: true, name: 'to', type: 'address' },
      { indexed: true, name: 'tokenId', type: 'uint256' },
    ],
  },
  {
    type: 'function',
    name: 'setFlags',
    stateMutability: 'nonpayable',
    inputs: [
      { name: 'on', type: 'bool' },
      { name: 'id', type: 'bytes4' },
      { name: '', type: 'uint8' },
    ],
    outputs: [],
  },
] as const satisfies Abi;

const A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const B = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';

t.test('dynamic, signed, small and tuple values decode to what ethers v5 gives', async (t) => {
  const d = createAbiDecoder(abi);
  const topics = encodeEventTopics({ abi, eventName: 'Swap', args: { sender: A, tag: 'hello' } }) as string[];
  const data = encodeAbiParameters(
    abi[0].inputs.filter((i) => !i.indexed),
    [-5n, 3000, 'a note', { token: B, weights: [1n, 2n] }],
  );
  const args = rebuildArgs(d.decodeLog(topics, data)!) as unknown as Record<string, unknown> & unknown[];
  // an indexed string makes ethers' LogDescription copy the arguments: by position only
  t.equal(args[0], A);
  t.equal(args.sender, undefined, 'no named keys when an indexed input is only a hash, as in ethers');
  const tag = args[1] as Record<string, unknown>;
  t.same(Object.keys(tag), ['_isIndexed', 'hash', 'constructor'], "ethers' copy of an Indexed");
  t.equal(tag.hash, keccak256(toHex('hello')), 'an indexed string is only its hash');
  t.equal(JSON.stringify(tag), JSON.stringify({ _isIndexed: true, hash: tag.hash }));
  const amount0 = args[2] as BigNumber;
  t.ok(BigNumber.isBigNumber(amount0));
  t.equal(amount0.toString(), '-5');
  t.equal(amount0.toHexString(), '-0x05');
  t.equal(args[3], 3000, 'integers of 48 bits or less are numbers, as in ethers');
  t.equal(args[4], 'a note');
  const pair = args[5] as Record<string, unknown> & unknown[];
  t.equal(pair.token, B, 'a tuple keeps its named keys');
  t.equal(pair[0], B);
  t.same(
    (pair.weights as BigNumber[]).map((w) => w.toBigInt()),
    [1n, 2n],
  );
  t.equal(args.length, 6);
  t.ok(Object.isFrozen(args));
});

t.test('ERC20 and ERC721 Transfer share a topic0; the number of topics picks the event', async (t) => {
  const d = createAbiDecoder(abi);
  const erc20 = encodeEventTopics({ abi: [abi[1]], eventName: 'Transfer', args: { from: A, to: B } }) as string[];
  const a20 = rebuildArgs(d.decodeLog(erc20, encodeAbiParameters([{ type: 'uint256' }], [10n ** 30n]))!) as unknown as Record<string, BigNumber>;
  t.equal(a20.value!.toBigInt(), 10n ** 30n);
  const erc721 = [...erc20, encodeAbiParameters([{ type: 'uint256' }], [42n])];
  const a721 = rebuildArgs(d.decodeLog(erc721, '0x')!) as unknown as Record<string, BigNumber>;
  t.equal(a721.tokenId!.toNumber(), 42);
  t.equal(d.decodeLog([`0x${'00'.repeat(32)}`], '0x'), undefined, 'an unknown event');
  t.equal(d.decodeLog(erc20, '0x1234'), undefined, 'data that does not fit');
});

t.test('call data decodes by selector, unnamed inputs positional only', async (t) => {
  const d = createAbiDecoder(abi);
  const input = encodeFunctionData({ abi, functionName: 'setFlags', args: [true, '0xdeadbeef', 7] });
  const args = rebuildArgs(d.decodeInput(input)!) as unknown as Record<string, unknown> & unknown[];
  t.same([...args], [true, '0xdeadbeef', 7]);
  t.equal(args.on, true);
  t.equal(args.id, '0xdeadbeef');
  t.equal(d.decodeInput('0x12345678'), undefined);
});

t.test('BigNumber behaves like ethers v5', async (t) => {
  const b = BigNumber.from('1000');
  t.equal(b._hex, '0x03e8');
  t.equal(BigNumber.from(0)._hex, '0x00');
  t.equal(b.add(24).sub(BigNumber.from(4)).mul(2).div(4).mod(7).toNumber(), 510 % 7);
  t.ok(b.eq(1000n) && b.gte('1000') && b.lte(1000) && !b.isZero() && !b.isNegative());
  t.equal(BigNumber.from('-0x10').toString(), '-16');
  t.equal(BigNumber.from(255).toTwos(8).fromTwos(8).toString(), '-1');
  t.same(JSON.parse(JSON.stringify(b)), { type: 'BigNumber', hex: '0x03e8' });
  t.equal(BigNumber.from({ _hex: '0x05', _isBigNumber: true }).toBigInt(), 5n);
  t.throws(() => BigNumber.from(2n ** 60n).toNumber(), /overflow/);
  t.throws(() => b.div(0), /division-by-zero/);
  t.throws(() => BigNumber.from(1.5), /underflow/);
});

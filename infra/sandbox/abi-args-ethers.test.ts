import t from 'tap';
import { EventFragment, Interface, type ParamType } from '@ethersproject/abi';
import type { BigNumber as EthersBigNumber } from '@ethersproject/bignumber';
import { createAbiDecoder } from './abi-decoder.ts';
import { rebuildArgs } from './isolate/rebuild-args.ts';
import type { JsonAbi } from '../../domain/mapping/json-abi.ts';
import { generator, view } from '../../test/support/ethers-differential.ts';

/**
 * A differential test against ethers v5, which decodes `log.args` and `transaction.args` for
 * SubQuery's node (`Interface.parseLog`, `decodeFunctionData`): for events and functions of every
 * parameter shape, values encoded by ethers are decoded by idx's path (the host's decoder, the
 * copy into the sandbox, the sandbox's rebuild) and by ethers, and what a mapping can observe of
 * the two must be the same: positions, named keys, key order, frozenness, value types, BigNumbers,
 * indexed hashes and JSON.
 */

const tuple = (name: string, components: object[], more: object = {}) => ({ name, type: 'tuple', components, ...more });

const abi: JsonAbi = [
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
    name: 'Sizes',
    inputs: ['8', '16', '24', '32', '40', '48', '56', '64', '128', '256'].flatMap((b) => [
      { indexed: false, name: `u${b}`, type: `uint${b}` },
      { indexed: false, name: `i${b}`, type: `int${b}` },
    ]),
  },
  {
    type: 'event',
    name: 'Indexed',
    inputs: [
      { indexed: true, name: 'tag', type: 'string' },
      { indexed: true, name: 'blob', type: 'bytes' },
      { indexed: true, name: 'list', type: 'uint256[]' },
      { indexed: false, name: 'note', type: 'string' },
    ],
  },
  {
    type: 'event',
    name: 'Names',
    inputs: [
      { indexed: false, name: 'length', type: 'uint8' },
      { indexed: false, name: 'dup', type: 'uint8' },
      { indexed: false, name: 'dup', type: 'bool' },
      { indexed: false, name: 'map', type: 'address' },
      { indexed: false, name: 'constructor', type: 'uint8' },
      { indexed: false, name: '', type: 'uint256' },
      { indexed: false, name: '_length', type: 'uint8' },
    ],
  },
  {
    type: 'event',
    name: 'Shapes',
    inputs: [
      { indexed: true, name: 'who', type: 'address' },
      { indexed: true, name: 'flag', type: 'bool' },
      { indexed: true, name: 'key', type: 'bytes32' },
      { indexed: false, name: 'fixedList', type: 'uint16[3]' },
      { indexed: false, name: 'nested', type: 'uint256[][]' },
      tuple('pair', [
        { name: 'token', type: 'address' },
        { name: 'weights', type: 'uint256[]' },
        { name: 'length', type: 'uint8' },
        { name: 'dup', type: 'uint8' },
        { name: 'dup', type: 'uint8' },
        { name: 'toString', type: 'bool' },
        tuple('inner', [
          { name: 'a', type: 'int24' },
          { name: '', type: 'bytes' },
        ]),
      ]),
      tuple(
        'pairs',
        [
          { name: 'x', type: 'uint64' },
          { name: 'y', type: 'string' },
        ],
        { type: 'tuple[]' },
      ),
      { indexed: false, name: 'b3', type: 'bytes3' },
    ],
  },
  {
    type: 'function',
    name: 'swap',
    stateMutability: 'nonpayable',
    outputs: [],
    inputs: [
      { name: 'amountIn', type: 'uint256' },
      { name: 'length', type: 'uint32' },
      { name: 'to', type: 'address' },
      { name: 'to', type: 'address' },
      { name: 'path', type: 'address[]' },
      tuple('order', [
        { name: 'id', type: 'bytes32' },
        { name: 'qty', type: 'int128' },
      ]),
      { name: '', type: 'string' },
      { name: 'filter', type: 'uint8' },
    ],
  },
  {
    type: 'function',
    name: 'transfer',
    stateMutability: 'nonpayable',
    outputs: [{ name: '', type: 'bool' }],
    inputs: [
      { name: 'recipient', type: 'address' },
      { name: 'amount', type: 'uint256' },
    ],
  },
] as unknown as JsonAbi;

const iface = new Interface(abi as never);

/**
 * ethers' encodeEventLog, which does not hash indexed arrays ("not implemented"): such an input is
 * encoded as the bytes whose hash its topic is (its elements' words, in place), and topic 0 set back.
 */
function encodeEventLog(event: EventFragment, values: unknown[]): { data: string; topics: string[] } {
  const hashedAsBytes = (p: ParamType) => p.indexed && p.baseType === 'array';
  if (!event.inputs.some(hashedAsBytes)) return iface.encodeEventLog(event, values);
  const stand = EventFragment.from({
    type: 'event',
    name: event.name,
    inputs: event.inputs.map((p) => (hashedAsBytes(p) ? { name: p.name, type: 'bytes', indexed: true } : JSON.parse(p.format('json')))),
  });
  const standValues = values.map((v, i) =>
    hashedAsBytes(event.inputs[i]!) ? `0x${(v as EthersBigNumber[]).map((x) => x.toHexString().slice(2).padStart(64, '0')).join('')}` : v,
  );
  const encoded = new Interface([stand]).encodeEventLog(stand, standValues);
  return { data: encoded.data, topics: [iface.getEventTopic(event), ...encoded.topics.slice(1)] };
}
const decoder = createAbiDecoder(abi);
/** idx's whole path: decoded on the host, copied into the sandbox, rebuilt there */
const idxArgs = (wire: ReturnType<typeof decoder.decodeLog>) => (wire === undefined ? undefined : rebuildArgs(structuredClone(wire)));

t.test("log.args: idx's decoded event arguments are indistinguishable from ethers'", async (t) => {
  for (const event of Object.values(iface.events)) {
    for (let seed = 1; seed <= 25; seed++) {
      const g = generator(seed * 7919 + event.name.length);
      const values = event.inputs.map((p) => g.value(p));
      const { data, topics } = encodeEventLog(event, values);
      const theirs = iface.parseLog({ data, topics }).args;
      const ours = idxArgs(decoder.decodeLog(topics, data));
      t.same(view(ours), view(theirs), `${event.name}, seed ${seed}`);
    }
  }
});

t.test("transaction.args: idx's decoded call data is indistinguishable from ethers'", async (t) => {
  for (const fn of Object.values(iface.functions)) {
    for (let seed = 1; seed <= 25; seed++) {
      const g = generator(seed * 104729 + fn.name.length);
      const data = iface.encodeFunctionData(
        fn,
        fn.inputs.map((p) => g.value(p)),
      );
      // as SubQuery's parseTransaction does: the function by its selector, then its data
      const theirs = iface.decodeFunctionData(iface.getFunction(data.slice(0, 10)), data);
      const ours = idxArgs(decoder.decodeInput(data));
      t.same(view(ours), view(theirs), `${fn.name}, seed ${seed}`);
    }
  }
});

t.test('a log of another event, or of the same topic with other indexed inputs, has no args in either', async (t) => {
  const transfer = iface.getEvent('Transfer');
  const { data, topics } = iface.encodeEventLog(transfer, ['0x' + '11'.repeat(20), '0x' + '22'.repeat(20), 5]);
  // ERC721's Transfer: the same topic, the value indexed too
  const erc721Topics = [...topics, '0x' + '00'.repeat(31) + '05'];
  t.equal(decoder.decodeLog(erc721Topics, '0x'), undefined);
  t.throws(() => iface.parseLog({ topics: erc721Topics, data: '0x' }));
  const unknown = ['0x' + 'ab'.repeat(32)];
  t.equal(decoder.decodeLog(unknown, data), undefined);
  t.throws(() => iface.parseLog({ topics: unknown, data }));
});

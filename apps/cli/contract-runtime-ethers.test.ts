import t from 'tap';
import { Interface } from '@ethersproject/abi';
import type { Abi } from 'viem';
import { connectContract } from './contract-runtime.ts';
import { generator, view } from '../../test/support/ethers-differential.ts';

/**
 * A differential test against ethers v5, whose Contract SubQuery's typechain factories call: each
 * function's answer, encoded by ethers, comes back from idx's contract runtime as ethers' Contract
 * gives it (`contract.f()`: the single output bare, several as a Result; `functions.f()`: always a
 * Result), down to named keys, frozenness and BigNumbers.
 */

const tuple = (name: string, components: object[], type = 'tuple') => ({ name, type, components });

const abi = [
  { type: 'function', name: 'balanceOf', stateMutability: 'view', inputs: [{ name: 'owner', type: 'address' }], outputs: [{ name: '', type: 'uint256' }] },
  { type: 'function', name: 'decimals', stateMutability: 'view', inputs: [], outputs: [{ name: '', type: 'uint8' }] },
  {
    type: 'function',
    name: 'getReserves',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: '_reserve0', type: 'uint112' },
      { name: '_reserve1', type: 'uint112' },
      { name: '_blockTimestampLast', type: 'uint32' },
    ],
  },
  {
    type: 'function',
    name: 'odd',
    stateMutability: 'view',
    inputs: [],
    outputs: [
      { name: 'length', type: 'uint8' },
      { name: 'dup', type: 'int64' },
      { name: 'dup', type: 'bool' },
      { name: 'list', type: 'uint256[]' },
      tuple('info', [
        { name: 'who', type: 'address' },
        { name: 'tags', type: 'string[]' },
        { name: 'x', type: 'int24' },
        { name: 'x', type: 'bytes' },
      ]),
      tuple(
        'rows',
        [
          { name: 'k', type: 'bytes32' },
          { name: 'v', type: 'uint128' },
        ],
        'tuple[]',
      ),
      { name: '', type: 'bytes4' },
    ],
  },
  {
    type: 'function',
    name: 'position',
    stateMutability: 'view',
    inputs: [{ name: 'id', type: 'uint256' }],
    outputs: [
      tuple('p', [
        { name: 'owner', type: 'address' },
        { name: 'liquidity', type: 'uint128' },
      ]),
    ],
  },
] as const;

const iface = new Interface(abi as never);

t.test("contract calls answer as ethers' Contract does", async (t) => {
  for (const fn of Object.values(iface.functions)) {
    for (let seed = 1; seed <= 15; seed++) {
      const g = generator(seed * 31337 + fn.name.length);
      const answer = iface.encodeFunctionResult(
        fn,
        fn.outputs!.map((p) => g.value(p)),
      );
      const contract = connectContract(abi as unknown as Abi, '0x' + '11'.repeat(20), { call: async () => answer });
      const args = fn.inputs.map((p) => g.value(p));
      const theirs = iface.decodeFunctionResult(fn, answer);
      // ethers' Contract: the single output bare, else the Result
      const theirsBare = fn.outputs!.length === 1 ? theirs[0] : theirs;
      t.same(view(await (contract[fn.name] as (...a: unknown[]) => Promise<unknown>)(...args)), view(theirsBare), `${fn.name}(), seed ${seed}`);
      t.same(view(await contract.functions[fn.name]!(...args)), view(theirs), `functions.${fn.name}(), seed ${seed}`);
    }
  }
});

import type { Abi, AbiFunction, AbiParameter } from 'viem';
import { decodeFunctionResult, encodeFunctionData, toFunctionSignature } from 'viem/utils';
// the sandbox's own class, so contract results behave exactly like decoded event arguments
import { BigNumber } from '../../infra/sandbox/isolate/big-number.ts';
import { tupleNames } from '../../domain/mapping/ethers-result-names.ts';
import { positional } from '../../domain/mapping/positional-params.ts';

/**
 * Bundled into a project by `idx build` when its mappings use the contract factories that
 * `idx codegen` writes (`src/types/contracts/<Name>__factory.ts`, SubQuery's typechain output
 * shape): `Erc20Abi__factory.connect(address, api).balanceOf(owner)`. Calls go through the
 * provider's `call` (the sandbox's `api`, pinned to the block being processed); viem encodes and
 * decodes, and results come back as ethers v5 gives them: integers above 48 bits as BigNumber,
 * several outputs as an array with named keys.
 *
 * It runs inside the sandbox: no Node modules, no module-level state.
 */

interface Provider {
  call(transaction: { to: string; data: string; from?: string }, blockTag?: string | number): Promise<string>;
}

interface CallOverrides {
  blockTag?: string | number;
  from?: string;
}

type ContractFunction = (...args: unknown[]) => Promise<unknown>;

export interface ConnectedContract {
  readonly address: string;
  readonly provider: Provider;
  readonly functions: Record<string, ContractFunction>;
  readonly callStatic: Record<string, ContractFunction>;
  [name: string]: unknown;
}

export function connectContract(abi: Abi, address: string, provider: Provider): ConnectedContract {
  if (provider === undefined || provider === null || typeof provider.call !== 'function') {
    throw new TypeError(`connect(${address}, provider): the provider needs a call method; pass the global api`);
  }
  const functions: Record<string, ContractFunction> = {};
  const contract: ConnectedContract = { address, provider, functions, callStatic: functions };
  const byName = new Map<string, AbiFunction[]>();
  for (const item of abi) if (item.type === 'function') byName.set(item.name, [...(byName.get(item.name) ?? []), item]);

  for (const [name, overloads] of byName) {
    for (const fn of overloads) {
      // decoded by position: viem gives tuples of named components as objects, losing repeated names
      const unnamed = { ...fn, outputs: positional(fn.outputs) };
      const raw = async (args: unknown[]): Promise<unknown[]> => {
        const params = args.slice(0, fn.inputs.length);
        const overrides = (args.length > fn.inputs.length ? args[fn.inputs.length] : undefined) as CallOverrides | undefined;
        if (params.length < fn.inputs.length) {
          throw new TypeError(`${toFunctionSignature(fn)} takes ${fn.inputs.length} argument(s), got ${params.length}`);
        }
        const data = encodeFunctionData({ abi: [fn], functionName: fn.name, args: fn.inputs.map((p, i) => toViem(p, params[i])) } as never);
        const result = await provider.call({ to: address, data, ...(overrides?.from ? { from: overrides.from } : {}) }, overrides?.blockTag);
        const decoded = decodeFunctionResult({ abi: [unnamed], functionName: fn.name, data: result as `0x${string}` } as never) as unknown;
        // viem gives a single output bare and several as an array
        const values = fn.outputs.length === 1 ? [decoded] : ((decoded ?? []) as unknown[]);
        return fn.outputs.map((p, i) => toEthers(p, values[i]));
      };
      // like ethers: `contract.f(...)` gives the single output (or a Result); `functions.f(...)` always a Result
      const call: ContractFunction = async (...args) => {
        const out = await raw(args);
        return fn.outputs.length === 0 ? undefined : fn.outputs.length === 1 ? out[0] : result(fn.outputs, out);
      };
      const signature = toFunctionSignature(fn);
      contract[signature] = call;
      functions[signature] = async (...args) => result(fn.outputs, await raw(args));
      // an overloaded name is only reachable by its signature, as in ethers
      if (overloads.length === 1) {
        if (!(name in contract)) contract[name] = call;
        functions[name] = functions[signature]!;
      }
    }
  }
  return contract;
}

/** ethers BigNumberish and friends → what viem encodes. */
function toViem(param: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) return (value as unknown[]).map((v) => toViem({ ...param, type: array[1]! } as AbiParameter, v));
  if (param.type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    const source = value as Record<string, unknown> & unknown[];
    return Object.fromEntries(components.map((c, i) => [c.name ?? String(i), toViem(c, Array.isArray(source) ? source[i] : source[c.name ?? ''])]));
  }
  if (/^u?int\d*$/.test(param.type)) {
    const big = value as { toBigInt?: () => bigint; _hex?: string };
    if (typeof big?.toBigInt === 'function') return big.toBigInt();
    if (typeof big?._hex === 'string') return BigInt(big._hex);
    return BigInt(value as string | number | bigint);
  }
  return value;
}

/** viem's decoded value → ethers v5's: BigNumber above 48 bits, Results for tuples. */
function toEthers(param: AbiParameter, value: unknown): unknown {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) return Object.freeze((value as unknown[]).map((v) => toEthers({ ...param, type: array[1]! } as AbiParameter, v)));
  if (param.type === 'tuple') {
    const components = (param as { components: readonly AbiParameter[] }).components;
    const source = value as Record<string, unknown> & unknown[];
    return result(
      components,
      components.map((c, i) => toEthers(c, Array.isArray(source) ? source[i] : source[c.name ?? ''])),
    );
  }
  if (typeof value === 'bigint') return BigNumber.from(value);
  return value;
}

/** An ethers Result: the values in order, frozen, with the keys ethers gives (ethers-result-names.ts). */
function result(params: readonly AbiParameter[], values: unknown[]): readonly unknown[] {
  const out: unknown[] & Record<string, unknown> = [...values] as unknown[] & Record<string, unknown>;
  tupleNames(params.map((p) => p.name)).forEach((name, i) => {
    if (name !== null) out[name] = values[i];
  });
  return Object.freeze(out);
}

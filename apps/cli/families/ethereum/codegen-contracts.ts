import type { Abi, AbiFunction, AbiParameter } from 'viem';
import { toFunctionSignature } from 'viem/utils';
import { argsType, paramType, signatureWithNames } from './codegen-abi.ts';
import { isIdentifier, parameterName } from '../../codegen-names.ts';
import { GENERATED_HEADER } from '../../codegen-runtime-types.ts';
import { CONTRACT_RUNTIME_MODULE } from '../../contract-runtime-plugin.ts';

/** Members every connected contract has; functions with these names are only reachable by signature. */
const RESERVED = new Set(['address', 'provider', 'functions', 'callStatic', 'then', 'constructor', '__proto__']);

/**
 * `contracts/<Name>.ts` (the contract's type), `contracts/factories/<Name>__factory.ts` (its
 * `connect(address, api)`), in the shape of the typechain output SubQuery's codegen writes, so
 * `import { Erc20Abi__factory } from "../types/contracts"` works unchanged. Calls are read-only
 * `eth_call`s through the given provider, made by idx's contract runtime rather than ethers.
 */
export function renderContract(abi: Abi, name: string): Map<string, string> {
  const fns = abi.filter((i): i is AbiFunction => i.type === 'function');
  const count = new Map<string, number>();
  for (const f of fns) count.set(f.name, (count.get(f.name) ?? 0) + 1);
  const seen = new Set<string>();
  const members: string[] = [];
  const results: string[] = [];
  for (const fn of fns) {
    const sig = toFunctionSignature(fn);
    if (seen.has(sig)) continue;
    seen.add(sig);
    const where = `${name}.${sig}`;
    const taken = new Set(['overrides']);
    const params = [...fn.inputs.map((p, i) => `${paramName(p, i, taken)}: ${inputType(p, where)}`), 'overrides?: CallOverrides'].join(', ');
    const single = fn.outputs.length === 0 ? 'void' : fn.outputs.length === 1 ? paramType(fn.outputs[0]!, where) : argsType(fn.outputs, where);
    const all = argsType(fn.outputs, where);
    const doc = `  /** ${signatureWithNames(fn)} */`;
    const key = JSON.stringify(sig);
    members.push(doc, `  ${key}(${params}): Promise<${single}>;`);
    results.push(`    ${key}(${params}): Promise<${all}>;`);
    if (count.get(fn.name) === 1 && !RESERVED.has(fn.name)) {
      members.push(doc, `  ${fn.name}(${params}): Promise<${single}>;`);
      results.push(`    ${fn.name}(${params}): Promise<${all}>;`);
    }
  }
  const contract = [
    GENERATED_HEADER,
    'import type { BigNumber, BigNumberish } from "../ethereum";',
    '',
    '// re-exported so that the import is used whatever the ABI holds',
    'export type { BigNumber, BigNumberish };',
    '',
    'export interface CallOverrides {',
    '  blockTag?: string | number;',
    '  from?: string;',
    '}',
    '',
    `/** ${name} at an address: each function is an eth_call at the block being processed. */`,
    `export interface ${name} {`,
    '  readonly address: string;',
    ...members,
    '  /** every function, its outputs always as an array with named keys */',
    '  readonly functions: {',
    ...results,
    '  };',
    `  readonly callStatic: Omit<${name}, "address" | "functions" | "callStatic">;`,
    '}',
    '',
  ].join('\n');
  const factory = [
    GENERATED_HEADER,
    `import { connectContract } from "${CONTRACT_RUNTIME_MODULE}";`,
    `import type { ${name} } from "../${name}";`,
    '',
    `const abi = ${JSON.stringify(abi)} as const;`,
    '',
    `export class ${name}__factory {`,
    '  static readonly abi = abi;',
    '  /** `provider`: the `api` global (calls pinned to the block being processed), or `unsafeApi` */',
    `  static connect(address: string, provider: { call(transaction: { to: string; data: string; from?: string }, blockTag?: string | number): Promise<string> }): ${name} {`,
    `    return connectContract(abi as never, address, provider) as unknown as ${name};`,
    '  }',
    '}',
    '',
  ].join('\n');
  return new Map([
    [`contracts/${name}.ts`, contract],
    [`contracts/factories/${name}__factory.ts`, factory],
  ]);
}

/** `contracts/index.ts` and the declaration of the runtime module, for all contracts. */
export function renderContractsIndex(names: readonly string[]): Map<string, string> {
  const index = [
    GENERATED_HEADER,
    ...names.flatMap((n) => [`export type { ${n} } from "./${n}";`, `export { ${n}__factory } from "./factories/${n}__factory";`]),
    '',
  ];
  const runtime = [
    GENERATED_HEADER,
    `// idx build bundles this module (idx's contract runtime) into the project's dist.`,
    `declare module "${CONTRACT_RUNTIME_MODULE}" {`,
    '  export function connectContract(abi: unknown, address: string, provider: unknown): unknown;',
    '}',
    '',
  ];
  return new Map([
    ['contracts/index.ts', index.join('\n')],
    ['contracts/runtime.d.ts', runtime.join('\n')],
  ]);
}

/** What a call accepts (ethers BigNumberish for integers). */
function inputType(param: AbiParameter, where: string): string {
  const array = /^(.*)\[(\d*)\]$/.exec(param.type);
  if (array) return `Array<${inputType({ ...param, type: array[1]! } as AbiParameter, where)}>`;
  if (param.type === 'tuple') {
    const components = (param as { components?: readonly AbiParameter[] }).components ?? [];
    const positional = `[${components.map((c) => inputType(c, where)).join(', ')}]`;
    if (!components.every((c) => c.name)) return positional;
    return `${positional} | { ${components.map((c) => `${JSON.stringify(c.name)}: ${inputType(c, where)}`).join('; ')} }`;
  }
  if (/^u?int\d*$/.test(param.type)) return 'BigNumberish';
  return paramType(param, where);
}

/** The parameter's ABI name when it can be one (not a reserved word, not taken by another), else `arg<index>`. */
function paramName(param: AbiParameter, index: number, taken: Set<string>): string {
  return parameterName(param.name && isIdentifier(param.name) ? param.name : `arg${index}`, taken);
}

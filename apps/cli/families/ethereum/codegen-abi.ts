import { basename } from 'node:path';
import type { Abi, AbiEvent, AbiFunction, AbiParameter } from 'viem';
// viem/utils rather than viem: the package root takes about a second to load
import { toEventSignature, toFunctionSignature } from 'viem/utils';
import { IdxError } from '../../../../domain/errors.ts';
import { GENERATED_HEADER } from '../../codegen-runtime-types.ts';

/**
 * `erc20.abi.json` → `Erc20Abi`: the name typechain (and so SubQuery) gives an ABI file, used for
 * `src/types/abi-interfaces/<Name>.ts`.
 */
export function abiInterfaceName(file: string): string {
  const stem = basename(file).replace(/\.json$/i, '');
  const words = stem.split(/[^A-Za-z0-9]+/).filter((w) => w.length > 0);
  const name = words.map((w) => w[0]!.toUpperCase() + w.slice(1)).join('');
  return /^[0-9]/.test(name) || name === '' ? `Abi${name}` : name;
}

/**
 * The ABI in a JSON asset: a plain ABI array, or an artifact (hardhat, foundry, truffle) with an
 * `abi` array. undefined when the JSON is neither.
 */
export function abiOf(json: unknown): Abi | undefined {
  const candidate = Array.isArray(json) ? json : (json as { abi?: unknown } | null)?.abi;
  if (!Array.isArray(candidate)) return undefined;
  if (!candidate.every((item) => item !== null && typeof item === 'object' && typeof (item as { type?: unknown }).type === 'string')) return undefined;
  return candidate as Abi;
}

/**
 * `abi-interfaces/<Name>.ts`: per event `<Event>Log` and per function `<Function>Transaction`, an
 * EthereumLog / EthereumTransaction whose `args` are typed as ethers v5 decodes them (and so as
 * idx's sandbox must): positional, plus a key per named parameter.
 */
export function renderAbiInterface(abi: Abi, file: string): string {
  const events = abi.filter((i): i is AbiEvent => i.type === 'event');
  const functions = abi.filter((i): i is AbiFunction => i.type === 'function');
  const out: string[] = [
    GENERATED_HEADER,
    `// from ${basename(file)}`,
    'import type { BigNumber, EthereumLog, EthereumTransaction, Indexed } from "../ethereum";',
    '',
    '// re-exported for mappings, and so that the import is used whatever the ABI holds',
    'export type { BigNumber, Indexed };',
  ];
  for (const [event, typeName] of named(events, (e) => upperFirst(e.name), toEventSignature, basename(file))) {
    const args = argsType(event.inputs, toEventSignature(event), true);
    out.push(
      '',
      `/** ${signatureWithNames(event)} */`,
      `export type ${typeName}EventArgs = ${args};`,
      `export type ${typeName}Log = EthereumLog<${typeName}EventArgs> & { args: ${typeName}EventArgs };`,
    );
  }
  for (const [fn, typeName] of named(functions, (f) => upperFirst(f.name), toFunctionSignature, basename(file))) {
    const args = argsType(fn.inputs, toFunctionSignature(fn));
    out.push(
      '',
      `/** ${signatureWithNames(fn)} */`,
      `export type ${typeName}CallArgs = ${args};`,
      `export type ${typeName}Transaction = EthereumTransaction<${typeName}CallArgs> & { args: ${typeName}CallArgs };`,
    );
  }
  out.push('');
  return out.join('\n');
}

/**
 * Type names for events or functions; overloads (same name, other parameters) get the parameter
 * types appended, e.g. `Transfer_address_uint256`, so each stays distinct.
 */
function named<T extends { name: string }>(items: T[], base: (i: T) => string, signature: (i: T) => string, file: string): [T, string][] {
  // counted by the type name, not the item's: `transfer` and `Transfer` both give `Transfer…`
  const count = new Map<string, number>();
  for (const i of items) count.set(base(i), (count.get(base(i)) ?? 0) + 1);
  const seen = new Set<string>();
  const given = new Map<string, string>(); // type name → the signature that has it
  const result: [T, string][] = [];
  for (const item of items) {
    const sig = signature(item);
    if (seen.has(sig)) continue; // an ABI listing the same item twice
    seen.add(sig);
    const overloaded = (count.get(base(item)) ?? 0) > 1;
    const suffix = overloaded
      ? `_${sig
          .slice(sig.indexOf('(') + 1, -1)
          .replace(/[^A-Za-z0-9]+/g, '_')
          .replace(/_+$/, '')}`
      : '';
    const name = identifier(base(item) + suffix);
    const other = given.get(name);
    if (other !== undefined) throw new IdxError('ABI_NAME_CLASH', `${file}: ${other} and ${sig} would both be typed as ${name}; the ABI cannot be typed`);
    given.set(name, sig);
    result.push([item, name]);
  }
  return result;
}

/** `[…] & { name: … }`; for an event, indexed dynamic values are only their topic hash (`Indexed`). */
export function argsType(params: readonly AbiParameter[], where: string, event = false): string {
  const positional = params.map((p) => (event && (p as { indexed?: boolean }).indexed && isDynamic(p) ? 'Indexed' : paramType(p, where)));
  // a name given twice is a key once, as ethers keeps it (and a type may not declare a key twice)
  const keyed = params.flatMap((p, i) => (p.name && params.findIndex((q) => q.name === p.name) === i ? [`${propertyKey(p.name)}: ${positional[i]}`] : []));
  return `[${positional.join(', ')}]${keyed.length > 0 ? ` & { ${keyed.join('; ')} }` : ''}`;
}

/** What ethers v5 decodes a parameter to (and what contract calls return). */
export function paramType(param: AbiParameter, where: string): string {
  const type = param.type;
  const array = /^(.*)\[(\d*)\]$/.exec(type);
  if (array) return `Array<${paramType({ ...param, type: array[1]! } as AbiParameter, where)}>`;
  if (type === 'tuple') {
    const components = (param as { components?: readonly AbiParameter[] }).components ?? [];
    return argsType(components, where);
  }
  const int = /^u?int(\d*)$/.exec(type);
  if (int) return Number(int[1] || 256) <= 48 ? 'number' : 'BigNumber';
  if (type === 'address' || type === 'string' || type === 'function' || /^bytes\d*$/.test(type)) return 'string';
  if (type === 'bool') return 'boolean';
  if (/^u?fixed/.test(type)) return 'string';
  throw new IdxError('ABI_UNSUPPORTED_TYPE', `${where}: unsupported ABI parameter type "${type}"`);
}

function isDynamic(param: AbiParameter): boolean {
  return param.type === 'string' || param.type === 'bytes' || param.type.endsWith(']') || param.type.startsWith('tuple');
}

export function signatureWithNames(item: AbiEvent | AbiFunction): string {
  const params = item.inputs.map((p) => `${p.type}${(p as { indexed?: boolean }).indexed ? ' indexed' : ''}${p.name ? ` ${p.name}` : ''}`);
  return `${item.name}(${params.join(', ')})`.replace(/\*\//g, '*\\/');
}

export function propertyKey(name: string): string {
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? name : JSON.stringify(name);
}

function identifier(name: string): string {
  const cleaned = name.replace(/[^A-Za-z0-9_$]/g, '_');
  return /^[0-9]/.test(cleaned) ? `_${cleaned}` : cleaned;
}

function upperFirst(s: string): string {
  return s.length === 0 ? s : s[0]!.toUpperCase() + s.slice(1);
}

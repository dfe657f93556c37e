import { IdxError } from '../../errors.ts';
import { parseAbiSignature } from '../../project/abi-signature.ts';

/**
 * keccak256 of the UTF-8 bytes of `text`, as 0x-prefixed hex. Passed in because the domain has no
 * hashing of its own (infra gives viem's or node:crypto's).
 */
export type Keccak256 = (text: string) => string;

/** One position of a log topic filter: null = any, `!null` = present, else an exact 32-byte hex value (lowercase). */
export type TopicCondition = null | '!null' | string;

/** `Transfer(address indexed from, …)` → the 32-byte topic0, lowercase. Throws on a malformed signature. */
export function eventTopic(signature: string, keccak256: Keccak256): string {
  return keccak256(canonicalSignature(signature)).toLowerCase();
}

/** `transfer(address to, uint256)` → its 4-byte selector `0xa9059cbb`. Throws on a malformed signature. */
export function functionSelector(signature: string, keccak256: Keccak256): string {
  return keccak256(canonicalSignature(signature)).slice(0, 10).toLowerCase();
}

/**
 * A manifest's `topics` → comparable conditions: signatures hashed, hex values lowercased and
 * left-padded to 32 bytes (SubQuery compares with leading zeros stripped, so `0x0…0` 20-byte
 * addresses match their padded topic), `undefined` read as null.
 */
export function normaliseTopicFilter(topics: readonly (string | null | undefined)[] | undefined, keccak256: Keccak256): TopicCondition[] {
  return (topics ?? []).map((t) => {
    if (t === null || t === undefined) return null;
    if (t === '!null') return t;
    if (/^0x[0-9a-fA-F]*$/.test(t)) return `0x${t.slice(2).toLowerCase().padStart(64, '0')}`;
    return eventTopic(t, keccak256);
  });
}

/** Whether a log's topics satisfy normalised conditions. */
export function matchesTopicFilter(conditions: readonly TopicCondition[], logTopics: readonly string[]): boolean {
  return conditions.every((cond, i) => {
    if (cond === null) return true;
    const topic = logTopics[i];
    if (topic === undefined || topic === null) return false;
    return cond === '!null' || topic.toLowerCase() === cond;
  });
}

/** How a transaction's input is matched: any input, no input at all, or input starting with a prefix. */
export type FunctionCondition = { kind: 'any' } | { kind: 'no-input' } | { kind: 'prefix'; prefix: string };

/**
 * A transaction filter's `function` → a condition on the call data: a signature becomes its selector,
 * hex is taken as a prefix of the input, and null or `0x` means a plain transfer with no input.
 */
export function parseFunctionFilter(fn: string | null | undefined, keccak256: Keccak256): FunctionCondition {
  if (fn === undefined) return { kind: 'any' };
  if (fn === null || fn === '0x') return { kind: 'no-input' };
  if (/^0x[0-9a-fA-F]+$/.test(fn)) return { kind: 'prefix', prefix: fn.toLowerCase() };
  return { kind: 'prefix', prefix: functionSelector(fn, keccak256) };
}

export function matchesFunctionFilter(cond: FunctionCondition, input: string): boolean {
  if (cond.kind === 'any') return true;
  const data = input.toLowerCase();
  if (cond.kind === 'no-input') return data === '0x' || data === '';
  return data.startsWith(cond.prefix);
}

/** A block handler with `modulo: n` runs on heights divisible by n; without one, on every block. */
export function matchesModulo(height: number | bigint, modulo: number | undefined): boolean {
  if (modulo === undefined) return true;
  return typeof height === 'bigint' ? height % BigInt(modulo) === 0n : height % modulo === 0;
}

function canonicalSignature(signature: string): string {
  const parsed = parseAbiSignature(signature);
  if ('error' in parsed) throw new IdxError('INVALID_SIGNATURE', `"${signature}" is not a valid event or function signature: ${parsed.error}`);
  return parsed.canonical;
}

import { createHash } from 'node:crypto';
import type { RpcCall } from '../json-rpc-transport.ts';

/**
 * Which answers of a method never change, so that the RPC cache may keep them (a family declares
 * its table: infra/chains/<family>/rpc-cache-rules.ts; a method not in it is never kept):
 * - `block`: the block named by `params[param]`: by hash (a hex string of 32 bytes, or EIP-1898's
 *   `{blockHash}`) the answer is fixed forever; by height (a number, a hex quantity, `{blockNumber}`)
 *   only once that height is final; a tag (`latest`, `finalized`…) or no parameter, never;
 * - `resultBlock`: found by something else (a transaction hash): kept once the block the answer
 *   names (`blockNumber`) is final, as a reorganisation may move the transaction;
 * - `logs`: `eth_getLogs`: by `blockHash`, fixed; by `fromBlock`..`toBlock`, once `toBlock` is final.
 */
export type CacheRule = { kind: 'block'; param: number } | { kind: 'resultBlock' } | { kind: 'logs' };
export type CacheRules = Readonly<Record<string, CacheRule>>;

/** A kept `eth_getLogs` answer covers its filter (addresses, topics) over `[from, to]`. */
export interface LogSpan {
  filter: string;
  from: number;
  to: number;
}

/** What a call's answer would be kept as: its key, and for a log range the span it covers. */
export interface CacheSlot {
  key: string;
  span?: LogSpan;
}

/** How to look a call up: by its key, and for a log range also by the spans that may cover it. */
export type CacheLookup = { key: string; span?: LogSpan };

type BlockParam = { height: number } | { hash: string } | undefined;

const HASH = /^0x[0-9a-fA-F]{64}$/;
const QUANTITY = /^0x[0-9a-fA-F]{1,13}$/;

/** The block a parameter names: a height, a hash, or nothing fixed (a tag, absent, or unreadable). */
export function blockParam(value: unknown): BlockParam {
  if (typeof value === 'number') return Number.isSafeInteger(value) && value >= 0 ? { height: value } : undefined;
  if (typeof value === 'string') {
    if (HASH.test(value)) return { hash: value };
    if (QUANTITY.test(value)) return { height: Number.parseInt(value, 16) };
    return undefined;
  }
  if (value !== null && typeof value === 'object') {
    const o = value as { blockHash?: unknown; blockNumber?: unknown };
    if (typeof o.blockHash === 'string' && HASH.test(o.blockHash)) return { hash: o.blockHash };
    if (o.blockNumber !== undefined) return blockParam(o.blockNumber);
  }
  return undefined;
}

/** JSON with object keys in order: the same call is the same key however its filter was built. */
export function stableJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stableJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const o = value as Record<string, unknown>;
    return `{${Object.keys(o)
      .filter((k) => o[k] !== undefined)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stableJson(o[k])}`)
      .join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 40);

/** The key of a call: its method and parameters, hashed (160 bits: no two calls of a cache meet). */
export const callKey = (call: RpcCall): string => digest(`${call.method}${stableJson(call.params ?? [])}`);

/** A log range query's filter without its range, and the range; undefined for any other log query. */
function logRange(call: RpcCall): LogSpan | undefined {
  const filter = call.params?.[0];
  if (filter === null || typeof filter !== 'object' || 'blockHash' in filter) return undefined;
  const { fromBlock, toBlock, ...rest } = filter as { fromBlock?: unknown; toBlock?: unknown };
  const from = blockParam(fromBlock);
  const to = blockParam(toBlock);
  if (from === undefined || to === undefined || !('height' in from) || !('height' in to) || from.height > to.height) return undefined;
  return { filter: digest(`${call.method}${stableJson(rest)}`), from: from.height, to: to.height };
}

/** How to look `call` up, or undefined when the rules never keep its answers. */
export function cacheLookup(rules: CacheRules, call: RpcCall): CacheLookup | undefined {
  const rule = rules[call.method];
  if (rule === undefined) return undefined;
  if (rule.kind === 'block' && blockParam(call.params?.[rule.param]) === undefined) return undefined;
  const span = rule.kind === 'logs' ? logRange(call) : undefined;
  return { key: callKey(call), ...(span && { span }) };
}

/**
 * Where to keep the answer `result` to `call`, given the final height known when it came, or
 * undefined when it may still change: above finality, a tag, an empty (`null`) answer.
 */
export function cacheSlot(rules: CacheRules, call: RpcCall, result: unknown, finalized: number): CacheSlot | undefined {
  const rule = rules[call.method];
  if (rule === undefined || result === null || result === undefined) return undefined;
  const key = callKey(call);
  if (rule.kind === 'resultBlock') {
    const at = blockParam((result as { blockNumber?: unknown }).blockNumber);
    return at !== undefined && 'height' in at && at.height <= finalized ? { key } : undefined;
  }
  if (rule.kind === 'logs') {
    const filter = call.params?.[0];
    if (filter !== null && typeof filter === 'object' && 'blockHash' in filter) return blockParam(filter.blockHash) === undefined ? undefined : { key };
    const span = logRange(call);
    return span !== undefined && span.to <= finalized && Array.isArray(result) ? { key, span } : undefined;
  }
  const at = blockParam(call.params?.[rule.param]);
  if (at === undefined) return undefined;
  return 'hash' in at || at.height <= finalized ? { key } : undefined;
}

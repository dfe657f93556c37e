import { invalidParams } from '../../infra/rpc/json-rpc-server.ts';

/** Parsers of JSON-RPC params: a wrong one is a -32602 error saying what was expected. */

export type BlockTag = 'earliest' | 'latest' | 'pending' | 'safe' | 'finalized';
export type BlockParam = { tag: BlockTag } | { number: number };

const TAGS = new Set<string>(['earliest', 'latest', 'pending', 'safe', 'finalized']);

export function expectCount(method: string, params: readonly unknown[], min: number, max = min): void {
  if (params.length < min || params.length > max) {
    const want = min === max ? `${min}` : `${min} to ${max}`;
    throw invalidParams(`${method} expects ${want} param${max === 1 ? '' : 's'}, got ${params.length}`);
  }
}

/** A hex quantity ("0x1b4"; leading zeros tolerated, as geth and anvil do) or a JSON integer. */
export function parseQuantity(value: unknown, what: string): number {
  if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{1,16}$/.test(value)) {
    const n = Number.parseInt(value.slice(2), 16);
    if (Number.isSafeInteger(n)) return n;
  }
  throw invalidParams(`invalid ${what}: expected a hex quantity such as "0x1b4", got ${show(value)}`);
}

export function parseBlockParam(value: unknown, what = 'block number or tag'): BlockParam {
  if (typeof value === 'string' && TAGS.has(value)) return { tag: value as BlockTag };
  try {
    return { number: parseQuantity(value, what) };
  } catch {
    throw invalidParams(`invalid ${what}: expected a hex block number or one of earliest, latest, pending, safe, finalized; got ${show(value)}`);
  }
}

export function parseHash(value: unknown, what = 'hash'): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{64}$/.test(value)) return value.toLowerCase();
  throw invalidParams(`invalid ${what}: expected 32 bytes of 0x-hex, got ${show(value)}`);
}

export function parseAddress(value: unknown): string {
  if (typeof value === 'string' && /^0x[0-9a-fA-F]{40}$/.test(value)) return value.toLowerCase();
  throw invalidParams(`invalid address: expected 20 bytes of 0x-hex, got ${show(value)}`);
}

export function parseBool(value: unknown, what: string): boolean {
  if (typeof value === 'boolean') return value;
  throw invalidParams(`invalid ${what}: expected true or false, got ${show(value)}`);
}

export interface LogFilter {
  blockHash?: string;
  fromBlock: BlockParam;
  toBlock: BlockParam;
  /** undefined: any address */
  addresses?: string[];
  /** per position: any of these, or null for any */
  topics: (string[] | null)[];
}

/** The `eth_getLogs` filter object, as the Ethereum JSON-RPC specification defines it. */
export function parseLogFilter(value: unknown): LogFilter {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw invalidParams(`invalid filter: expected an object, got ${show(value)}`);
  const f = value as Record<string, unknown>;
  const filter: LogFilter = { fromBlock: { tag: 'latest' }, toBlock: { tag: 'latest' }, topics: [] };
  if (f.blockHash != null) {
    if (f.fromBlock != null || f.toBlock != null) throw invalidParams('cannot specify both blockHash and fromBlock/toBlock, choose one or the other');
    filter.blockHash = parseHash(f.blockHash, 'blockHash');
  }
  if (f.fromBlock != null) filter.fromBlock = parseBlockParam(f.fromBlock, 'fromBlock');
  if (f.toBlock != null) filter.toBlock = parseBlockParam(f.toBlock, 'toBlock');
  if (f.address != null) {
    const list = Array.isArray(f.address) ? f.address.map(parseAddress) : [parseAddress(f.address)];
    // an empty list restricts nothing, as in geth and anvil
    if (list.length > 0) filter.addresses = list;
  }
  if (f.topics != null) {
    if (!Array.isArray(f.topics)) throw invalidParams(`invalid topics: expected an array, got ${show(f.topics)}`);
    if (f.topics.length > 4) throw invalidParams(`invalid topics: at most 4 positions, got ${f.topics.length}`);
    filter.topics = f.topics.map((t, i) => {
      if (t === null) return null;
      if (!Array.isArray(t)) return [parseHash(t, `topic ${i}`)];
      // a null among the alternatives matches anything, as geth reads it
      if (t.length === 0 || t.includes(null)) return null;
      return t.map((x) => parseHash(x, `topic ${i}`));
    });
  }
  return filter;
}

function show(value: unknown): string {
  if (value === undefined) return 'nothing';
  const text = JSON.stringify(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}

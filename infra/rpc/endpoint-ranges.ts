/**
 * Which endpoint can answer which call, when some endpoints are idx-shard nodes that keep only a
 * range of the chain (their `idx_dataInfo`). Endpoints without a range are full nodes.
 */

/** idx-shard's error for blocks outside its range */
export const PRUNED_HISTORY = 4444;

/** What a shard keeps: `[start, end]`, end null while it follows the chain. */
export interface EndpointRange {
  start: number;
  end: number | null;
}

export interface RangedCall {
  method: string;
  params?: readonly unknown[];
}

/** The blocks a call reads: a span of heights (to = Infinity up to the newest), the newest block, or none in particular. */
export type BlockNeed = { kind: 'heights'; from: number; to: number } | { kind: 'head' } | { kind: 'any' } | { kind: 'full-node' };

/**
 * A family's JSON-RPC methods as range-keeping endpoints (idx-shard) serve them
 * (infra/chains/<family>/): which calls read which blocks. Plain data, so that a client's options
 * cross to worker threads.
 */
export interface RangedMethods {
  /** what a range-keeping endpoint serves; other calls (state reads) need a full node */
  served: readonly string[];
  /** calls of the newest block */
  head: readonly string[];
  /** calls of one block, by where their block parameter is */
  blockParam: Readonly<Record<string, number>>;
  /** calls of a span, whose first parameter is a filter `{ fromBlock, toBlock, blockHash }`: cut where shards meet */
  spans: readonly string[];
}

/** {@link RangedMethods} made quick to ask, once per client. */
export interface RangedMethodIndex {
  served: ReadonlySet<string>;
  head: ReadonlySet<string>;
  blockParam: ReadonlyMap<string, number>;
  spans: ReadonlySet<string>;
}

export function rangedMethodIndex(methods: RangedMethods): RangedMethodIndex {
  return {
    served: new Set(methods.served),
    head: new Set(methods.head),
    blockParam: new Map(Object.entries(methods.blockParam)),
    spans: new Set(methods.spans),
  };
}

/** `idx_dataInfo`'s answer as a range; undefined when it is not one (the endpoint is a full node). */
export function parseDataInfo(value: unknown): EndpointRange | undefined {
  if (value === null || typeof value !== 'object') return undefined;
  const v = value as { desiredChainDataStart?: unknown; desiredChainDataEnd?: unknown };
  const start = v.desiredChainDataStart;
  const end = v.desiredChainDataEnd;
  if (typeof start !== 'number' || !Number.isSafeInteger(start) || start < 0) return undefined;
  if (end === null || end === undefined || end === 0) return { start, end: null };
  if (typeof end !== 'number' || !Number.isSafeInteger(end)) return undefined;
  return { start, end };
}

function height(value: unknown): number | 'head' | 'any' {
  if (value === undefined || value === null) return 'head';
  if (typeof value === 'number') return value;
  if (typeof value === 'object') {
    const n = (value as { blockNumber?: unknown }).blockNumber;
    return n === undefined ? 'any' : height(n);
  }
  if (typeof value !== 'string') return 'any';
  if (value === 'earliest') return 0;
  // a block hash names no height
  if (value.length === 66) return 'any';
  if (/^0x[0-9a-f]+$/i.test(value)) return Number.parseInt(value.slice(2), 16);
  // latest, pending, safe, finalized
  return 'head';
}

/** The blocks `call` reads, by its family's `methods`. */
export function blockNeed(call: RangedCall, methods: RangedMethodIndex): BlockNeed {
  const params = call.params ?? [];
  if (!methods.served.has(call.method)) return { kind: 'full-node' };
  if (methods.head.has(call.method)) return { kind: 'head' };
  if (methods.spans.has(call.method)) {
    const f = (params[0] ?? {}) as { fromBlock?: unknown; toBlock?: unknown; blockHash?: unknown };
    if (f.blockHash != null) return { kind: 'any' };
    const from = height(f.fromBlock);
    const to = height(f.toBlock);
    if (from === 'any' || to === 'any') return { kind: 'any' };
    if (from === 'head') return { kind: 'head' };
    return { kind: 'heights', from, to: to === 'head' ? Number.POSITIVE_INFINITY : to };
  }
  const at = methods.blockParam.get(call.method);
  if (at === undefined) return { kind: 'any' };
  const h = height(params[at]);
  if (h === 'any') return { kind: 'any' };
  if (h === 'head') return { kind: 'head' };
  // every shard keeps genesis
  return h === 0 ? { kind: 'any' } : { kind: 'heights', from: h, to: h };
}

/** Whether an endpoint (undefined range: a full node) holds what the call needs. */
export function holds(range: EndpointRange | undefined, need: BlockNeed): boolean {
  if (range === undefined || need.kind === 'any') return true;
  if (need.kind === 'full-node') return false;
  if (need.kind === 'head') return range.end === null;
  return range.start <= need.from && (range.end === null ? true : need.to <= range.end);
}

/**
 * The endpoints (indexes) to send a call to: those that hold what it needs; for the head, when no
 * endpoint follows the chain, those reaching highest; empty when none holds a span of heights.
 * Methods a shard does not serve go to the full nodes.
 */
export function eligible(ranges: readonly (EndpointRange | undefined)[], need: BlockNeed): number[] {
  const all = ranges.map((_, i) => i);
  const holding = all.filter((i) => holds(ranges[i], need));
  if (holding.length > 0 || need.kind === 'heights') return holding;
  // a state read with only shards: they will say they do not have the method
  if (need.kind === 'full-node') return all;
  const top = Math.max(...ranges.map((r) => r?.end ?? Number.POSITIVE_INFINITY));
  return all.filter((i) => ranges[i]?.end === top);
}

/**
 * `[from, to]` cut where the shards' ranges meet, each piece held by some endpoint (the widest
 * first); undefined when some height is held by none.
 */
export function splitHeights(ranges: readonly (EndpointRange | undefined)[], from: number, to: number): { from: number; to: number }[] | undefined {
  const pieces: { from: number; to: number }[] = [];
  for (let at = from; at <= to;) {
    let reach = -1;
    for (const r of ranges) {
      if (r !== undefined && (r.start > at || (r.end !== null && r.end < at))) continue;
      reach = Math.max(reach, r === undefined || r.end === null ? Number.POSITIVE_INFINITY : r.end);
    }
    if (reach < at) return undefined;
    const end = Math.min(reach, to);
    pieces.push({ from: at, to: end });
    if (end === Number.POSITIVE_INFINITY) break;
    at = end + 1;
  }
  return pieces;
}

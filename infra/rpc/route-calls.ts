import { blockNeed, eligible, splitHeights, type EndpointRange, type RangedMethodIndex } from './endpoint-ranges.ts';
import type { RpcCall } from './json-rpc-transport.ts';
import type { RpcSettled } from './rpc-settled.ts';

/** One call to send, and the endpoints (by index) that may answer it. */
export interface RoutedPart {
  call: RpcCall;
  targets: number[];
}

/** Where each call goes: the parts to send, each call's parts (several for a cut span), parts grouped by their targets. */
export interface RoutePlan {
  parts: RoutedPart[];
  partsOf: number[][];
  /** part indexes with the same targets, sent together */
  groups: number[][];
}

/**
 * Each call to the endpoints holding its blocks (`ranges`, by endpoint; undefined is a full node;
 * which blocks a call reads: its family's `methods`), a span nobody holds whole (a log filter) cut
 * where the shards meet, a call nobody holds to every endpoint (so that the answer says why).
 */
export function routeCalls(calls: readonly RpcCall[], ranges: readonly (EndpointRange | undefined)[], methods: RangedMethodIndex): RoutePlan {
  const parts: RoutedPart[] = [];
  const partsOf: number[][] = calls.map((call) => {
    const need = blockNeed(call, methods);
    let targets = eligible(ranges, need);
    if (targets.length === 0 && need.kind === 'heights' && methods.spans.has(call.method)) {
      const pieces = splitHeights(ranges, need.from, need.to);
      if (pieces !== undefined) {
        const filter = call.params![0] as Record<string, unknown>;
        return pieces.map((p) => {
          const piece = {
            ...filter,
            fromBlock: `0x${p.from.toString(16)}`,
            toBlock: p.to === Number.POSITIVE_INFINITY ? (filter.toBlock ?? 'latest') : `0x${p.to.toString(16)}`,
          };
          parts.push({ call: { method: call.method, params: [piece] }, targets: eligible(ranges, { kind: 'heights', from: p.from, to: p.to }) });
          return parts.length - 1;
        });
      }
    }
    // nobody holds it: let every endpoint try, and the answer say why
    if (targets.length === 0) targets = ranges.map((_, i) => i);
    parts.push({ call, targets });
    return [parts.length - 1];
  });
  const groups = new Map<string, number[]>();
  parts.forEach((p, i) => {
    const key = p.targets.join(',');
    groups.set(key, [...(groups.get(key) ?? []), i]);
  });
  return { parts, partsOf, groups: [...groups.values()] };
}

/** Each call's answer from its parts' answers: a cut span's logs joined in order, or its first failure. */
export function joinRouted(partsOf: readonly number[][], settled: readonly RpcSettled[]): RpcSettled[] {
  return partsOf.map((indexes) => {
    if (indexes.length === 1) return settled[indexes[0]!]!;
    const failed = indexes.map((i) => settled[i]!).find((s) => !s.ok);
    if (failed !== undefined) return failed;
    const pieces = indexes.map((i) => settled[i] as { value: unknown[]; endpoint?: string });
    const endpoints = [...new Set(pieces.map((p) => p.endpoint).filter((e) => e !== undefined))];
    return { ok: true, value: pieces.flatMap((p) => p.value), endpoint: endpoints.join(', ') };
  });
}

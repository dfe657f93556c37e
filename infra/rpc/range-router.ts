import type { EndpointPool } from './endpoint-pool.ts';
import { parseDataInfo, PRUNED_HISTORY, rangedMethodIndex, type EndpointRange, type RangedMethods } from './endpoint-ranges.ts';
import type { FailoverSender } from './failover-sender.ts';
import type { RpcCall } from './json-rpc-transport.ts';
import { joinRouted, routeCalls } from './route-calls.ts';
import type { EndpointAnswer, RpcSettled } from './rpc-settled.ts';

/** Sends calls to the endpoints holding their blocks, when some endpoints are idx-shard nodes keeping a range. */
export interface RangeRouter {
  batchSettled(calls: readonly RpcCall[]): Promise<RpcSettled[]>;
  /** a shard answered that blocks are outside its range: ask the ranges again before the next calls */
  markStale(): void;
}

export interface RangeRouterOptions {
  /** the family's methods: which blocks a call reads */
  methods: RangedMethods;
  /** how long the endpoints' ranges are trusted */
  refreshMs: number;
  /** the same calls to every endpoint (the client's batchEach): to ask their ranges */
  batchEach(calls: readonly RpcCall[]): Promise<EndpointAnswer[]>;
}

export function createRangeRouter(pool: EndpointPool, sender: FailoverSender, options: RangeRouterOptions): RangeRouter {
  const methods = rangedMethodIndex(options.methods);
  let ranges: { at: number; list: (EndpointRange | undefined)[] } | undefined;
  let rangesStale = false;
  let asking: Promise<(EndpointRange | undefined)[]> | undefined;

  /** Each endpoint's range (undefined: a full node), asked when unknown, old, or known to have moved. */
  async function endpointRanges(): Promise<(EndpointRange | undefined)[]> {
    if (ranges !== undefined && !rangesStale && Date.now() - ranges.at < options.refreshMs) return ranges.list;
    asking ??= (async () => {
      rangesStale = false;
      const answers = await options.batchEach([{ method: 'idx_dataInfo', params: [] }]);
      const list = answers.map((a, i) => {
        // an endpoint that did not answer keeps what we knew of it
        if ('failure' in a) return ranges?.list[i];
        const [info] = a.settled;
        return info!.ok ? parseDataInfo(info!.value) : undefined;
      });
      ranges = { at: Date.now(), list };
      return list;
    })().finally(() => (asking = undefined));
    return asking;
  }

  /** Each call to the endpoints holding its blocks (route-calls.ts), the parts with the same targets sent together. */
  async function sendRouted(calls: readonly RpcCall[]): Promise<RpcSettled[]> {
    const all = pool.endpoints;
    const { parts, partsOf, groups } = routeCalls(calls, await endpointRanges(), methods);
    const settled: RpcSettled[] = new Array(parts.length);
    await Promise.all(
      groups.map(async (members) => {
        const allowed = new Set(parts[members[0]!]!.targets.map((i) => all[i]!));
        const answers = await sender.sendAll(
          members.map((i) => parts[i]!.call),
          new Set(all.filter((e) => !allowed.has(e))),
        );
        members.forEach((partIndex, k) => (settled[partIndex] = answers[k]!));
      }),
    );
    return joinRouted(partsOf, settled);
  }

  return {
    markStale: () => (rangesStale = true),
    async batchSettled(calls) {
      const settled = await sendRouted(calls);
      const outside = settled.flatMap((s, i) => (!s.ok && s.error.rpcCode === PRUNED_HISTORY ? [i] : []));
      if (outside.length === 0) return settled;
      // a shard's range moved since we asked: once more with the ranges as they are now
      const again = await sendRouted(outside.map((i) => calls[i]!));
      outside.forEach((callIndex, k) => (settled[callIndex] = again[k]!));
      return settled;
    },
  };
}

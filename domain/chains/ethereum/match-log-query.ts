import type { EthLog, LogQuery } from './chain-data.ts';

/** Whether `eth_getLogs` with `query` returns this log (its height aside). */
export function matchesLogQuery(query: Pick<LogQuery, 'address' | 'topics'>, log: Pick<EthLog, 'address' | 'topics'>): boolean {
  if (query.address !== undefined && !query.address.some((a) => a.toLowerCase() === log.address)) return false;
  return (query.topics ?? []).every(
    (position, i) => position === null || (log.topics[i] !== undefined && position.some((t) => t.toLowerCase() === log.topics[i])),
  );
}

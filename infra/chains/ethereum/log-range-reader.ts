import type { EthLog, LogQuery } from '../../../domain/chains/ethereum/chain-data.ts';
import { IdxError } from '../../../domain/errors.ts';
import type { RpcClient } from '../../rpc/create-rpc-client.ts';
import { toQuantity } from '../../rpc/hex-quantity.ts';
import { toEthLog } from './eth-wire.ts';
import { parseLogRangeRefusal } from './log-range-refusal.ts';

export interface Range {
  fromBlock: number;
  toBlock: number;
}

/** The logs of a query's range, in order, and who answered for a height (to name a lying endpoint). */
export interface LogsRead {
  logs: EthLog[];
  answeredBy(height: number): string | undefined;
}

/**
 * `eth_getLogs` over a range: cut into spans the endpoint accepts, all of a round in one batch; a
 * span the endpoint refuses as too wide is cut as it advises (or halved), and a stated limit is
 * kept for later queries.
 */
export function createLogRangeReader(
  client: RpcClient,
  options: { maxLogBlocks?: number; notice: (message: string) => void },
): (query: LogQuery) => Promise<LogsRead> {
  /** the widest log range an endpoint has stated it accepts */
  let maxLogBlocks = options.maxLogBlocks ?? Number.POSITIVE_INFINITY;

  /** What to ask instead of a range the endpoint refused as too wide. */
  function narrower(range: Range, error: Error, advice: { maxBlocks?: number; suggestedToBlock?: number }): Range[] {
    if (range.fromBlock === range.toBlock) {
      throw new IdxError(
        'RPC_LOG_RANGE_REFUSED',
        `the endpoint refuses eth_getLogs even for the single block ${range.fromBlock}: ${error.message}. Narrow the data source's address/topics filter or use an endpoint without this limit.`,
        { cause: error },
      );
    }
    const blocks = range.toBlock - range.fromBlock + 1;
    let span = Math.ceil(blocks / 2);
    if (advice.maxBlocks !== undefined) {
      span = advice.maxBlocks;
      if (advice.maxBlocks < maxLogBlocks)
        options.notice(`the endpoint limits eth_getLogs to ${advice.maxBlocks} blocks per query; asking for narrower ranges from now on`);
      maxLogBlocks = Math.min(maxLogBlocks, advice.maxBlocks);
    } else if (advice.suggestedToBlock !== undefined) {
      span = advice.suggestedToBlock - range.fromBlock + 1;
    }
    return splitRange(range, span);
  }

  return async (query) => {
    const done: { fromBlock: number; toBlock: number; logs: EthLog[]; endpoint?: string }[] = [];
    let queue = splitRange(query, maxLogBlocks);
    while (queue.length > 0) {
      const settled = await client.batchSettled(queue.map((r) => ({ method: 'eth_getLogs', params: [logFilter(query, r)] })));
      const next: Range[] = [];
      settled.forEach((s, i) => {
        const range = queue[i]!;
        if (s.ok) {
          if (!Array.isArray(s.value))
            throw new IdxError('RPC_BAD_RESPONSE', `eth_getLogs answered ${JSON.stringify(s.value)?.slice(0, 80)} instead of a list of logs`);
          done.push({ fromBlock: range.fromBlock, toBlock: range.toBlock, logs: s.value.map(toEthLog), endpoint: s.endpoint });
          return;
        }
        const advice = parseLogRangeRefusal(s.error, range);
        if (advice === null) throw s.error;
        next.push(...narrower(range, s.error, advice));
      });
      queue = next;
    }
    const logs = done.sort((a, b) => a.fromBlock - b.fromBlock).flatMap((d) => d.logs);
    return { logs, answeredBy: (height) => done.find((d) => d.fromBlock <= height && height <= d.toBlock)?.endpoint };
  };
}

/** [from, to] cut into consecutive ranges of at most `span` blocks. */
export function splitRange(range: Range, span: number): Range[] {
  const out: Range[] = [];
  const step = Math.max(1, Math.floor(Math.min(span, range.toBlock - range.fromBlock + 1)));
  for (let from = range.fromBlock; from <= range.toBlock; from += step) out.push({ fromBlock: from, toBlock: Math.min(range.toBlock, from + step - 1) });
  return out;
}

/** The `eth_getLogs` filter of a query over one range. */
export function logFilter(query: LogQuery, range: Range): Record<string, unknown> {
  const filter: Record<string, unknown> = { fromBlock: toQuantity(range.fromBlock), toBlock: toQuantity(range.toBlock) };
  if (query.address !== undefined) filter.address = query.address.length === 1 ? query.address[0] : query.address;
  if (query.topics !== undefined) {
    const topics = [...query.topics];
    // trailing "any" positions say nothing; some providers reject them
    while (topics.length > 0 && topics[topics.length - 1] === null) topics.pop();
    if (topics.length > 0) filter.topics = topics.map((t) => (t === null ? null : t.length === 1 ? t[0] : t));
  }
  return filter;
}

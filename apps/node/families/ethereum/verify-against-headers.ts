import type { EthBlock, EthLog, LogQuery } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import {
  BLOOM_BYTES,
  bloomAdmits,
  bloomHasLog,
  createBloomBitsCache,
  logsBloom,
  parseBloom,
  sameBloom,
  type Bloom,
} from '../../../../domain/chains/ethereum/logs-bloom.ts';
import { receiptsRoot } from '../../../../domain/chains/ethereum/receipts-root.ts';
import { matchesLogQuery } from '../../../../domain/chains/ethereum/match-log-query.ts';
import { IdxError } from '../../../../domain/errors.ts';

/** What one fetch brought, and how: enough to hold the logs up against their blocks' headers. */
export interface FetchedLogs {
  /** the eth_getLogs query the logs answered; undefined when none was asked */
  query: LogQuery | undefined;
  /** the list `getLogs` returned, to ask the source who answered */
  answer: readonly EthLog[] | undefined;
  /** heights whose every log was fetched (`getBlockLogs`, or an unfiltered query), and the list that holds them */
  complete: { heights: ReadonlySet<number>; answer: readonly unknown[] | undefined };
  /** logs by height, `removed` ones left out */
  logs: ReadonlyMap<number, readonly EthLog[]>;
  /** headers at hand: every block fetched, and with `verifyReceipts` every height of the range */
  headers: ReadonlyMap<number, EthBlock>;
  /** the lists the headers came from, to ask the source who answered */
  headerAnswers: readonly (readonly unknown[])[];
}

/**
 * Refuses logs that their blocks' headers contradict, so a lying or broken endpoint cannot get
 * wrong data indexed silently:
 * - every log's address and topics must be in its block's `logsBloom` (a bloom has no false negatives);
 * - a block whose bloom admits the query but got no log (or, with every log fetched, whose logs
 *   do not make up its bloom exactly) is asked again once: the same answer is accepted (a bloom has
 *   false positives), a different one fails the fetch;
 * - with `verifyReceipts`, the receipts of every block the query may touch are fetched, their trie
 *   root compared with the header's `receiptsRoot`, and the fetched logs with the receipts' logs:
 *   this also catches altered `data` and logs dropped from a block with other logs.
 * Failures are retryable `IdxError`s naming block and endpoint: the indexer fetches the range again
 * (on the next endpoint when there are several) and stops when the disagreement persists.
 * No RPC call is made when the headers agree, unless `verifyReceipts`.
 */
/** one per thread, kept across ranges: the same contracts, events and accounts come back */
const bitsOf = createBloomBitsCache();

export async function verifyAgainstHeaders(source: ChainSource, fetched: FetchedLogs, options: { verifyReceipts: boolean }): Promise<void> {
  const blooms = new Map<number, Bloom>();
  // a header without a well-formed bloom (a chain without them) says nothing: its blocks are left out
  for (const [height, header] of fetched.headers) if (header.logsBloom.length === 2 + 2 * BLOOM_BYTES) blooms.set(height, parseBloom(header.logsBloom));
  const logsEndpoint = (height: number) =>
    fetched.complete.heights.has(height) && fetched.complete.answer !== undefined
      ? answeredBy(source, fetched.complete.answer, height)
      : answeredBy(source, fetched.answer, height);
  const headerEndpoint = (height: number) => fetched.headerAnswers.map((a) => answeredBy(source, a, height)).find((e) => e !== undefined);
  const refuse = (height: number, what: string, culprit = logsEndpoint(height)) => {
    if (culprit !== undefined) source.distrust?.(culprit);
    return new IdxError(
      'RPC_ANSWER_CONTRADICTS_HEADER',
      `block ${height}: ${what} (logs from ${logsEndpoint(height) ?? 'the endpoint'}, header from ${headerEndpoint(height) ?? 'the endpoint'}); the endpoint is lying or broken`,
      { retryable: true },
    );
  };

  const queried = (height: number) => fetched.query !== undefined && fetched.query.fromBlock <= height && height <= fetched.query.toBlock;
  const doubtful: number[] = [];
  for (const [height, bloom] of blooms) {
    const logs = fetched.logs.get(height) ?? [];
    // an empty bloom over logs: a chain that leaves blooms empty (zkSync Era does), so it tells nothing
    if (logs.length > 0 && isEmpty(bloom)) continue;
    const stray = logs.find((l) => !bloomHasLog(bloom, l, bitsOf));
    if (stray !== undefined) throw refuse(height, `log ${stray.logIndex} (address ${stray.address}) is not in the block's logsBloom`);
    if (fetched.complete.heights.has(height)) {
      if (!sameBloom(logsBloom(logs, bitsOf), bloom)) doubtful.push(height);
    } else if (logs.length === 0 && queried(height) && bloomAdmits(bloom, fetched.query!, bitsOf)) doubtful.push(height);
  }

  if (options.verifyReceipts) {
    const heights = [...blooms]
      .filter(([h, bloom]) => (fetched.logs.get(h)?.length ?? 0) > 0 || doubtful.includes(h) || (queried(h) && bloomAdmits(bloom, fetched.query!, bitsOf)))
      .map(([h]) => h);
    await verifyReceipts(source, fetched, heights, refuse);
    return;
  }
  if (doubtful.length === 0) return;
  // Asked again, per block: the same answer stands (the bloom's false positive, or a chain whose
  // header bloom covers more than its logs); a different one shows the endpoint unreliable.
  const again = await Promise.all(
    doubtful.map((h) =>
      fetched.complete.heights.has(h) ? source.getBlockLogs([h]).then((l) => l[0]!) : source.getLogs({ ...fetched.query!, fromBlock: h, toBlock: h }),
    ),
  );
  doubtful.forEach((height, i) => {
    const before = fetched.logs.get(height) ?? [];
    const now = again[i]!.filter((l) => !l.removed);
    if (!sameLogs(before, now))
      throw refuse(
        height,
        `asked twice, the endpoints answered ${before.length} and then ${now.length} logs${before.length === 0 ? " although the block's logsBloom admits the filter" : ''}`,
      );
  });
}

async function verifyReceipts(
  source: ChainSource,
  fetched: FetchedLogs,
  heights: readonly number[],
  refuse: (height: number, what: string, culprit?: string) => IdxError,
): Promise<void> {
  if (heights.length === 0) return;
  const receipts = await source.getBlockReceipts(heights);
  heights.forEach((height, i) => {
    const list = receipts[i]!;
    const header = fetched.headers.get(height)!;
    const receiptsEndpoint = answeredBy(source, receipts, height) ?? 'the endpoint';
    if (list.some((r) => r.blockHash !== header.hash)) {
      throw new IdxError('CHAIN_CHANGED_DURING_FETCH', `block ${height} changed while its receipts were fetched (a reorganisation); fetching again`, {
        retryable: true,
      });
    }
    const root = receiptsRoot(list);
    if (root !== header.receiptsRoot)
      throw refuse(
        height,
        `the receipts from ${receiptsEndpoint} make the receipts root ${root}, not the header's ${header.receiptsRoot}`,
        answeredBy(source, receipts, height),
      );
    let expected = list.flatMap((r) => r.logs);
    if (!fetched.complete.heights.has(height)) {
      const query = fetched.query;
      expected = query === undefined || height < query.fromBlock || height > query.toBlock ? [] : expected.filter((l) => matchesLogQuery(query, l));
    }
    const got = fetched.logs.get(height) ?? [];
    if (!sameLogs(got, expected)) {
      const differing = got.find((l, k) => !sameLog(l, expected[k]));
      const what =
        got.length !== expected.length
          ? `${got.length} logs fetched where the block's receipts hold ${expected.length}`
          : `log ${differing!.logIndex} differs from the block's receipts`;
      throw refuse(height, what);
    }
  });
}

function isEmpty(bloom: Bloom): boolean {
  return bloom.every((b) => b === 0);
}

function answeredBy(source: ChainSource, result: readonly unknown[] | undefined, height: number): string | undefined {
  return result === undefined || source.answeredBy === undefined ? undefined : source.answeredBy(result, height);
}

function sameLogs(a: readonly EthLog[], b: readonly EthLog[]): boolean {
  return a.length === b.length && a.every((l, i) => sameLog(l, b[i]));
}

function sameLog(a: EthLog, b: EthLog | undefined): boolean {
  return (
    b !== undefined &&
    a.logIndex === b.logIndex &&
    a.address === b.address &&
    a.data === b.data &&
    a.transactionHash === b.transactionHash &&
    a.transactionIndex === b.transactionIndex &&
    a.topics.length === b.topics.length &&
    a.topics.every((t, i) => t === b.topics[i])
  );
}

import t from 'tap';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { blockFetch, completeHeights, logFetch } from './range-fetch-plan.ts';

const range = { from: 10, to: 13 };
const logs = { fromBlock: 10, toBlock: 13, address: ['0xa'] } as never;

t.test('log handlers only: the filtered query, then the blocks with logs and those a block handler needs', async (t) => {
  const plan: FetchPlan = { logs, transactions: false, blockHeights: [13] };
  const first = logFetch(plan, range);
  t.same(first, { everyHeight: false, allLogs: false, query: logs });
  const second = blockFetch(plan, range, first, [12, 11], false);
  t.same(second, { heights: [11, 12, 13], transactions: false, blockLogs: false, headersOnly: [] });
  t.same([...completeHeights(range, first, second, false)], [], 'no block holds every log');
  t.same(blockFetch(plan, range, first, [12], true).headersOnly, [10, 11], '--verify-receipts: the headers of the other heights');
});

t.test('every block and every log wanted: one unfiltered query, every height complete', async (t) => {
  const plan: FetchPlan = { logs, transactions: true, blockHeights: [], extras: { transactions: true, logs: true } };
  const first = logFetch(plan, range);
  t.same(first, { everyHeight: true, allLogs: true, query: { fromBlock: 10, toBlock: 13 } });
  const second = blockFetch(plan, range, first, [], false);
  t.same(second, { heights: [10, 11, 12, 13], transactions: true, blockLogs: false, headersOnly: [] });
  t.same([...completeHeights(range, first, second, false)], [10, 11, 12, 13]);
});

t.test("every log of some blocks: they come beside the blocks, those blocks complete; a dictionary's heights", async (t) => {
  const plan: FetchPlan = { logs, transactions: true, transactionHeights: [11], blockHeights: [], extras: { transactions: false, logs: true } };
  const first = logFetch(plan, range);
  t.same(first, { everyHeight: false, allLogs: true, query: logs });
  const second = blockFetch(plan, range, first, [13], false);
  t.same(second, { heights: [11, 13], transactions: true, blockLogs: true, headersOnly: [] });
  t.same([...completeHeights(range, first, second, true)], [11, 13]);
  t.same(
    blockFetch({ transactions: false, blockHeights: [] }, range, logFetch({ transactions: false, blockHeights: [] }, range), [], false),
    {
      heights: [],
      transactions: false,
      blockLogs: false,
      headersOnly: [],
    },
    'nothing to fetch',
  );
});

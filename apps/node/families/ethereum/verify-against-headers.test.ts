import t from 'tap';
import { keccak256, toHex } from 'viem/utils';
import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { EthLog } from '../../../../domain/chains/ethereum/chain-data.ts';
import { IdxError } from '../../../../domain/errors.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { makeErc20Workload } from '../../../../devchain/make-erc20-workload.ts';
import { createEthereumSource } from '../../../../infra/chains/ethereum/create-ethereum-source.ts';
import { createRpcClient } from '../../../../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from '../../../../test/support/anvil.ts';
import { fetchRange } from './fetch-range.ts';

const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));

const anvil = await anvilForTest(t);
const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
const honest = createEthereumSource(client);
const work = await makeErc20Workload(client, { blocks: 4, transfersPerBlock: 6, approvalsPerBlock: 1, senders: 6, recipients: 40 });
const range = { from: work.startBlock, to: work.toBlock };
const transfers: FetchPlan = {
  logs: { fromBlock: range.from, toBlock: range.to, address: [work.token], topics: [[TRANSFER]] },
  transactions: false,
  blockHeights: [],
};

/** The honest source, counting calls, with some answers replaced. */
function source(lie: { getLogs?: (n: number, logs: EthLog[]) => EthLog[]; getBlockLogs?: (n: number, lists: EthLog[][]) => EthLog[][] } = {}) {
  const calls: string[] = [];
  const distrusted: string[] = [];
  let logsCalls = 0;
  let blockLogsCalls = 0;
  const wrapped: ChainSource = {
    ...honest,
    getBlocks: (h, o) => (calls.push('getBlocks'), honest.getBlocks(h, o)),
    getBlockReceipts: (h) => (calls.push('getBlockReceipts'), honest.getBlockReceipts(h)),
    getLogs: async (q) => {
      calls.push('getLogs');
      const logs = await honest.getLogs(q);
      return lie.getLogs ? lie.getLogs(logsCalls++, logs) : logs;
    },
    getBlockLogs: async (h) => {
      calls.push('getBlockLogs');
      const lists = await honest.getBlockLogs(h);
      return lie.getBlockLogs ? lie.getBlockLogs(blockLogsCalls++, lists) : lists;
    },
    distrust: (e) => void distrusted.push(e),
  };
  return { source: wrapped, calls, distrusted };
}

t.test('when the headers agree, no call is added', async (t) => {
  const s = source();
  const fetched = await fetchRange(s.source, transfers, range);
  t.equal(fetched.logCount, 4 * 6 + 6, "the workload's transfers and the mints");
  t.same(s.calls, ['getLogs', 'getBlocks']);
});

t.test('a block whose bloom admits the filter but got no log is asked again; the same answer stands', async (t) => {
  // a recipient's topic as topic0: in the bloom (as topic2), yet no log matches — the bloom's false positive
  const heights = [work.fromBlock, work.fromBlock + 1, work.toBlock];
  const blocks = await honest.getBlockLogs(heights);
  const recipientTopic = blocks[0]![0]!.topics[2]!;
  const receiving = heights.filter((_, i) => blocks[i]!.some((l) => l.topics[2] === recipientTopic));
  const s = source();
  const plan: FetchPlan = { logs: { fromBlock: range.from, toBlock: range.to, topics: [[recipientTopic]] }, transactions: false, blockHeights: receiving };
  const fetched = await fetchRange(s.source, plan, range);
  t.equal(fetched.logCount, 0);
  t.same(s.calls, ['getLogs', 'getBlocks', ...receiving.map(() => 'getLogs')], 'one more eth_getLogs per such block');
});

t.test('an empty answer the second asking contradicts is refused, and the endpoint distrusted', async (t) => {
  const s = source({ getLogs: (n, logs) => (n === 0 ? [] : logs) });
  const plan: FetchPlan = { ...transfers, blockHeights: [work.fromBlock + 1] };
  const err = await fetchRange(s.source, plan, range).catch((e: unknown) => e);
  t.ok(err instanceof IdxError && err.retryable, 'a retryable error');
  t.equal((err as IdxError).code, 'RPC_ANSWER_CONTRADICTS_HEADER');
  t.match(
    (err as Error).message,
    `block ${work.fromBlock + 1}: asked twice, the endpoints answered 0 and then 6 logs although the block's logsBloom admits the filter`,
  );
});

t.test('with every log of a block fetched, logs that do not make up its bloom are asked again', async (t) => {
  // the mint block: one Transfer to each sender, each the only log naming its sender
  const plan: FetchPlan = { ...transfers, extras: { logs: true, transactions: false } };
  // in place: the source knows who answered by the list it handed out
  const drop = (lists: EthLog[][]) => lists.forEach((l, i) => (lists[i] = l.filter((log) => log.blockNumber !== work.mintBlock || log.logIndex !== 2)));
  const s = source({ getBlockLogs: (n, lists) => (n === 0 && drop(lists), lists) });
  const err = await fetchRange(s.source, plan, range).catch((e: unknown) => e);
  t.equal((err as IdxError).code, 'RPC_ANSWER_CONTRADICTS_HEADER', String(err));
  t.match(
    (err as Error).message,
    `block ${work.mintBlock}: asked twice, the endpoints answered 5 and then 6 logs (logs from ${anvil.url}, header from ${anvil.url})`,
  );
  t.same(s.distrusted, [anvil.url]);

  const again = source();
  const fetched = await fetchRange(again.source, plan, range);
  t.same(again.calls, ['getLogs', 'getBlocks', 'getBlockLogs'], 'an honest answer costs no extra call');
  t.equal(fetched.logs.get(work.fromBlock)?.length, 7, 'transfers and the approval');
});

t.test("a log not in its block's bloom is refused without asking again", async (t) => {
  const s = source({ getLogs: (_, logs) => logs.map((l, i) => (i === 0 ? { ...l, address: '0x' + '12'.repeat(20) } : l)) });
  const err = await fetchRange(s.source, transfers, range).catch((e: unknown) => e);
  t.match((err as Error).message, /^block \d+: log \d+ \(address 0x1212121212121212121212121212121212121212\) is not in the block's logsBloom/);
  t.same(s.calls, ['getLogs', 'getBlocks']);
});

t.test('a chain that leaves its blooms empty is not refused', async (t) => {
  const empty = '0x' + '00'.repeat(256);
  const s = source();
  const noBlooms: ChainSource = { ...s.source, getBlocks: async (h, o) => (await s.source.getBlocks(h, o)).map((b) => ({ ...b, logsBloom: empty })) };
  const fetched = await fetchRange(noBlooms, transfers, range);
  t.equal(fetched.logCount, 4 * 6 + 6);
  const without: ChainSource = { ...s.source, getBlocks: async (h, o) => (await s.source.getBlocks(h, o)).map((b) => ({ ...b, logsBloom: '0x' })) };
  t.equal((await fetchRange(without, transfers, range)).logCount, 4 * 6 + 6, 'nor one without blooms');
});

t.test('--verify-receipts: one receipts call; altered data is refused', async (t) => {
  const s = source();
  await fetchRange(s.source, transfers, range, { verifyReceipts: true });
  t.same(s.calls.sort(), ['getBlockReceipts', 'getBlocks', 'getBlocks', 'getLogs'], 'headers of the other heights, then the receipts');
  const liar = source({ getLogs: (_, logs) => logs.map((l, i) => (i === 1 ? { ...l, data: '0x' + '00'.repeat(32) } : l)) });
  const err = await fetchRange(liar.source, transfers, range, { verifyReceipts: true }).catch((e: unknown) => e);
  t.match((err as Error).message, /^block \d+: log \d+ differs from the block's receipts/);
});

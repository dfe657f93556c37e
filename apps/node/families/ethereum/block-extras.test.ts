import t from 'tap';
import type { EthBlock, EthLog, EthTransaction } from '../../../../domain/chains/ethereum/chain-data.ts';
import type { ChainSource } from '../../../../domain/chains/ethereum/chain-source.ts';
import type { FetchPlan } from '../../../../domain/chains/ethereum/compile-data-sources.ts';
import { createBlockExtrasLoader } from './block-extras.ts';
import { fetchRange } from './fetch-range.ts';

// A chain of 10 blocks; block h has two transactions, each with one log: a matched Transfer of the token and another contract's log.
const TOKEN = `0x${'aa'.repeat(20)}`;
const OTHER = `0x${'bb'.repeat(20)}`;
const hash = (h: number) => `0x${h.toString(16).padStart(64, '0')}`;
const txHash = (h: number, i: number) => `0x${(h * 10 + i).toString(16).padStart(64, 'f')}`;
const tx = (h: number, i: number): EthTransaction => ({
  hash: txHash(h, i),
  blockNumber: h,
  blockHash: hash(h),
  transactionIndex: i,
  from: OTHER,
  to: TOKEN,
  value: 0n,
  input: '0x',
  gas: 1n,
  nonce: i,
});
const log = (h: number, i: number): EthLog => ({
  address: i === 0 ? TOKEN : OTHER,
  topics: [`0x${'11'.repeat(32)}`],
  data: '0x',
  blockNumber: h,
  blockHash: hash(h),
  transactionHash: txHash(h, i),
  transactionIndex: i,
  logIndex: i,
  removed: false,
});
const block = (h: number, full: boolean): EthBlock => ({
  height: h,
  hash: hash(h),
  parentHash: hash(h - 1),
  timestamp: h,
  miner: OTHER,
  gasLimit: 1n,
  gasUsed: 1n,
  difficulty: 0n,
  extraData: '0x',
  logsBloom: '0x',
  nonce: '0x',
  receiptsRoot: '0x',
  sha3Uncles: '0x',
  size: 1,
  stateRoot: '0x',
  transactionsRoot: '0x',
  uncles: [],
  transactionHashes: [txHash(h, 0), txHash(h, 1)],
  ...(full && { transactions: [tx(h, 0), tx(h, 1)] }),
});

function chain() {
  const calls: string[] = [];
  const none = async () => {
    throw new Error('not used');
  };
  const source: ChainSource = {
    chainId: none,
    genesisHash: none,
    bestHeight: none,
    finalizedHeight: none,
    getBlockRefs: none,
    getReceipts: none,
    getBlockReceipts: none,
    call: none,
    async getBlocks(heights, options) {
      calls.push(`getBlocks ${heights.join(',')}${options.transactions ? ' full' : ''}`);
      return heights.map((h) => block(h, options.transactions));
    },
    async getLogs(q) {
      calls.push(`getLogs ${q.fromBlock}-${q.toBlock}${q.address ? ' token' : ''}`);
      const out: EthLog[] = [];
      for (let h = q.fromBlock; h <= q.toBlock; h++)
        out.push(...[log(h, 0), log(h, 1)].filter((l) => q.address === undefined || q.address.includes(l.address)));
      return out;
    },
    async getBlockLogs(heights) {
      calls.push(`getBlockLogs ${heights.join(',')}`);
      return heights.map((h) => [log(h, 0), log(h, 1)]);
    },
  };
  return { source, calls };
}

const logPlan = (from: number, to: number, extras?: FetchPlan['extras']): FetchPlan => ({
  transactions: false,
  blockHeights: [],
  logs: { fromBlock: from, toBlock: to, address: [TOKEN] },
  ...(extras && { extras }),
});

t.test('a range fetched for log handlers only: matched logs, blocks without transactions', async (t) => {
  const { source, calls } = chain();
  const r = await fetchRange(source, logPlan(1, 3), { from: 1, to: 3 });
  t.same(calls, ['getLogs 1-3 token', 'getBlocks 1,2,3']);
  t.same(
    [...r.logs.values()].map((l) => l.length),
    [1, 1, 1],
  );
  t.equal(r.logsComplete, false);
  t.equal(r.blocks.get(2)!.transactions, undefined);
});

t.test('with extras in the plan: full transactions and every log of the fetched blocks, in the same round trip', async (t) => {
  const { source, calls } = chain();
  const r = await fetchRange(source, logPlan(1, 3, { transactions: true, logs: true }), { from: 1, to: 3 });
  t.same(calls, ['getLogs 1-3 token', 'getBlocks 1,2,3 full', 'getBlockLogs 1,2,3']);
  t.same(
    [...r.logs.values()].map((l) => l.map((x) => x.logIndex)),
    [
      [0, 1],
      [0, 1],
      [0, 1],
    ],
  );
  t.equal(r.logsComplete, true);
  t.equal(r.blocks.get(3)!.transactions!.length, 2);
});

t.test('every block of the range and every log: one unfiltered eth_getLogs holds the filtered one', async (t) => {
  const { source, calls } = chain();
  const r = await fetchRange(
    source,
    { transactions: true, blockHeights: [], logs: { fromBlock: 1, toBlock: 2, address: [TOKEN] }, extras: { transactions: false, logs: true } },
    { from: 1, to: 2 },
  );
  t.same(calls, ['getLogs 1-2', 'getBlocks 1,2 full']);
  t.same(r.logs.get(2)!.length, 2);
});

t.test('the loader: the first read loads the whole range in one batch, then plans ask for it', async (t) => {
  const { source, calls } = chain();
  const learned: string[] = [];
  const loader = createBlockExtrasLoader(source, { prefetch: false, onLearn: (m) => learned.push(m) });
  t.equal(loader.wanted(), undefined, 'a project that read nothing fetches nothing extra');
  const range = await fetchRange(source, logPlan(1, 4), { from: 1, to: 4 });
  loader.use(range);
  calls.length = 0;
  const first = await loader.load(2, { transactions: true, logs: false });
  t.same(
    first.transactions!.map((x) => x.hash),
    [txHash(2, 0), txHash(2, 1)],
  );
  t.same(calls, ['getBlocks 1,2,3,4 full'], 'every block of the range at once');
  await loader.load(3, { transactions: true, logs: false });
  t.same(calls, ['getBlocks 1,2,3,4 full'], 'the next block of the range is already there');
  const logs = await loader.load(3, { transactions: false, logs: true });
  t.same(
    logs.logs!.map((l) => l.address),
    [TOKEN, OTHER],
  );
  t.same(calls, ['getBlocks 1,2,3,4 full', 'getBlockLogs 1,2,3,4']);
  t.equal(range.logsComplete, true, 'the later blocks of the range are handed over complete');
  t.same(loader.wanted(), { transactions: true, logs: true });
  t.equal(learned.length, 2, 'told once per kind');
  await t.rejects(loader.load(9, { transactions: true, logs: false }), { code: 'BLOCK_NOT_IN_RANGE' });
});

t.test('a block that changed under the range (a reorganisation) is refused, not mixed in', async (t) => {
  const { source } = chain();
  const loader = createBlockExtrasLoader(
    { ...source, getBlocks: async (hs) => hs.map((h) => ({ ...block(h, true), hash: hash(h + 100) })) },
    { prefetch: false },
  );
  loader.use(await fetchRange(source, logPlan(1, 2), { from: 1, to: 2 }));
  await t.rejects(loader.load(1, { transactions: true, logs: false }), { code: 'CHAIN_CHANGED_DURING_FETCH', retryable: true });
});

t.test('--unsafe prefetches everything from the start', async (t) => {
  const { source } = chain();
  t.same(createBlockExtrasLoader(source, { prefetch: true }).wanted(), { transactions: true, logs: true });
});

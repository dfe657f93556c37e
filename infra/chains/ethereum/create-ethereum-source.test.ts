import t from 'tap';
import { decodeFunctionResult, encodeFunctionData, keccak256, toHex } from 'viem/utils';
import { anvilForTest } from '../../../test/support/anvil.ts';
import { callCount, deadPort, startRpcProxy, type JsonRpcRequest } from '../../../test/support/local-rpc-server.ts';
import type { Teardown } from '../../../test/support/teardown.ts';
import { testErc20Abi } from '../../../devchain/contracts/test-erc20.artifact.ts';
import { makeErc20Workload } from '../../../devchain/make-erc20-workload.ts';
import { createEthereumSource } from './create-ethereum-source.ts';
import { createRpcClient } from '../../rpc/create-rpc-client.ts';

const TRANSFER = keccak256(toHex('Transfer(address,address,uint256)'));
const APPROVAL = keccak256(toHex('Approval(address,address,uint256)'));

const anvil = await anvilForTest(t, { chainId: 31_338 });
const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
const source = createEthereumSource(client);
const work = await makeErc20Workload(client, { blocks: 30, transfersPerBlock: 5, approvalsPerBlock: 1, senders: 4, recipients: 12 });
const heights = Array.from({ length: work.toBlock - work.fromBlock + 1 }, (_, i) => work.fromBlock + i);

/** a source behind a proxy that counts requests and may answer some calls itself */
const behindProxy = async (t: Teardown, intercept?: Parameters<typeof startRpcProxy>[2]) => {
  const proxy = await startRpcProxy(t, anvil.url, intercept);
  const notices: string[] = [];
  return { proxy, notices, source: createEthereumSource(createRpcClient({ endpoints: [{ url: proxy.url }] }), { onNotice: (m) => notices.push(m) }) };
};
const getLogsRange = (c: JsonRpcRequest) => {
  const f = c.params[0] as { fromBlock: string; toBlock: string };
  return Number(f.toBlock) - Number(f.fromBlock) + 1;
};
const getLogsCalls = (bodies: unknown[]) => bodies.flatMap((b) => (Array.isArray(b) ? b : [b]) as JsonRpcRequest[]).filter((c) => c.method === 'eth_getLogs');

t.test('chain identity and heights', async (t) => {
  t.equal(await source.chainId(), 31_338);
  const [genesis] = await source.getBlockRefs([0]);
  t.equal(await source.genesisHash(), genesis!.hash);
  t.match(await source.genesisHash(), /^0x[0-9a-f]{64}$/);
  const best = await source.bestHeight();
  t.equal(best, work.toBlock);
  // anvil calls a block finalized two epochs (2 × 32 slots) behind the head
  t.equal(await source.finalizedHeight(), Math.max(0, best - 64));
});

t.test('a dead endpoint beside anvil: reads fail over to anvil', async (t) => {
  const dead = `http://127.0.0.1:${await deadPort()}`;
  const source = createEthereumSource(createRpcClient({ endpoints: [{ url: dead }, { url: anvil.url }], retries: 0 }));
  for (let i = 0; i < 4; i++)
    t.same(
      (await source.getBlockRefs(heights)).map((r) => r.height),
      heights,
    );
  const down = createEthereumSource(createRpcClient({ endpoints: [{ url: dead }], retries: 1, backoffMs: 1 }));
  await t.rejects(down.bestHeight(), { code: 'RPC_UNREACHABLE', message: new RegExp(`${dead}: connect ECONNREFUSED`) });
});

t.test('finalizedHeight is null where the chain has no finalized tag', async (t) => {
  const { proxy, source, notices } = await behindProxy(t, (c) =>
    c.params[0] === 'finalized' ? { error: { code: -32602, message: 'invalid block tag finalized' } } : undefined,
  );
  t.equal(await source.finalizedHeight(), null);
  t.equal(await source.finalizedHeight(), null);
  t.equal(proxy.bodies.length, 1, 'learned once, not asked again');
  t.match(notices, [/does not know the "finalized" block tag .*falls back to block confirmations/]);
});

t.test('getBlocks: one HTTP request for many heights, domain values', async (t) => {
  const { proxy, source } = await behindProxy(t);
  const blocks = await source.getBlocks(heights, { transactions: true });
  t.equal(proxy.bodies.length, 1);
  t.equal(callCount(proxy.bodies[0]), heights.length);
  t.same(
    blocks.map((b) => b.height),
    heights,
  );
  const raw = (await client.request('eth_getBlockByNumber', [`0x${work.fromBlock.toString(16)}`, true])) as Record<string, unknown> & {
    transactions: Record<string, string>[];
  };
  const b = blocks[0]!;
  t.equal(b.hash, raw.hash);
  t.equal(b.parentHash, raw.parentHash);
  t.equal(b.timestamp, Number(raw.timestamp));
  t.equal(b.gasLimit, BigInt(raw.gasLimit as string));
  t.equal(b.baseFeePerGas, BigInt(raw.baseFeePerGas as string));
  t.equal(b.transactions!.length, 6);
  t.same(
    b.transactionHashes,
    b.transactions!.map((x) => x.hash),
  );
  const tx = b.transactions![0]!;
  t.match(tx, { blockNumber: b.height, blockHash: b.hash, transactionIndex: 0, to: work.token, value: 0n, type: 2, chainId: 31_338 });
  t.equal(tx.hash, raw.transactions[0]!.hash);
  t.equal(tx.from, raw.transactions[0]!.from);
  t.equal(tx.input, raw.transactions[0]!.input);
  t.equal(tx.gas, 100_000n);
  t.type(tx.maxFeePerGas, 'bigint');
  t.ok(work.senders.includes(tx.from));

  const light = await source.getBlocks([work.fromBlock], { transactions: false });
  t.equal(light[0]!.transactions, undefined);
  t.same(light[0]!.transactionHashes, b.transactionHashes);
});

t.test('getBlockRefs chain up by parent hash; a missing block is a retryable error', async (t) => {
  const refs = await source.getBlockRefs(heights);
  for (let i = 1; i < refs.length; i++) t.equal(refs[i]!.parentHash, refs[i - 1]!.hash);
  t.same(Object.keys(refs[0]!).sort(), ['hash', 'height', 'parentHash', 'timestamp']);
  await t.rejects(source.getBlockRefs([work.toBlock + 100]), { code: 'CHAIN_BLOCK_NOT_FOUND', retryable: true });
});

t.test('getLogs by address and topics', async (t) => {
  const all = await source.getLogs({ fromBlock: work.fromBlock, toBlock: work.toBlock, address: [work.token] });
  t.equal(all.length, work.transfers + work.approvals);
  const transfers = await source.getLogs({
    fromBlock: work.fromBlock,
    toBlock: work.toBlock,
    address: [work.token.toUpperCase().replace('0X', '0x')],
    topics: [[TRANSFER]],
  });
  t.equal(transfers.length, work.transfers);
  const approvals = await source.getLogs({ fromBlock: work.fromBlock, toBlock: work.toBlock, topics: [[APPROVAL], null, null] });
  t.equal(approvals.length, work.approvals);
  const either = await source.getLogs({ fromBlock: work.fromBlock, toBlock: work.toBlock, topics: [[TRANSFER, APPROVAL]] });
  t.equal(either.length, all.length);
  const sender = `0x${work.senders[0]!.slice(2).padStart(64, '0')}`;
  const fromSender0 = await source.getLogs({ fromBlock: work.fromBlock, toBlock: work.toBlock, topics: [[TRANSFER], [sender]] });
  t.ok(fromSender0.length > 0 && fromSender0.every((l) => l.topics[1] === sender));
  t.same(await source.getLogs({ fromBlock: work.fromBlock, toBlock: work.toBlock, address: [] }), [], 'no address: nothing');
  t.same(await source.getLogs({ fromBlock: 10, toBlock: 9 }), []);
  const l = all[0]!;
  t.match(l, { address: work.token, blockNumber: work.fromBlock, transactionIndex: 0, logIndex: 0, removed: false });
  t.match(l.data, /^0x[0-9a-f]{64}$/);
  for (let i = 1; i < all.length; i++) {
    const [a, b] = [all[i - 1]!, all[i]!];
    t.ok(a.blockNumber < b.blockNumber || (a.blockNumber === b.blockNumber && a.logIndex < b.logIndex), 'ordered');
  }
});

t.test('getLogs adapts to a provider that states a block limit, and remembers it', async (t) => {
  const limit = 7;
  let refused = 0;
  const { proxy, source, notices } = await behindProxy(t, (c) => {
    if (c.method !== 'eth_getLogs' || getLogsRange(c) <= limit) return undefined;
    refused++;
    return { error: { code: -32614, message: `eth_getLogs is limited to a ${limit} range` } };
  });
  const query = { fromBlock: work.fromBlock, toBlock: work.toBlock, address: [work.token] };
  const expected = await createEthereumSource(client).getLogs(query);
  t.same(await source.getLogs(query), expected);
  t.equal(refused, 1);
  t.equal(proxy.bodies.length, 2, 'one refused call, then one batch of narrower ranges');
  t.ok(getLogsCalls(proxy.bodies.slice(1)).every((c) => getLogsRange(c) <= limit));
  t.same(await source.getLogs(query), expected);
  t.equal(refused, 1, 'the limit is remembered');
  t.same(notices, ['the endpoint limits eth_getLogs to 7 blocks per query; asking for narrower ranges from now on']);

  const known = createEthereumSource(createRpcClient({ endpoints: [{ url: proxy.url }] }), { maxLogBlocks: limit });
  t.same(await known.getLogs(query), expected);
  t.equal(refused, 1, 'a limit given up front is never hit');
});

t.test('getLogs halves ranges whose results a provider refuses, down to what it accepts', async (t) => {
  const maxResults = 10;
  const { proxy, source } = await behindProxy(t, (c) => {
    if (c.method !== 'eth_getLogs' || getLogsRange(c) * 6 <= maxResults) return undefined;
    return { error: { code: -32005, message: `query returned more than ${maxResults} results` } };
  });
  const query = { fromBlock: work.fromBlock, toBlock: work.toBlock, address: [work.token] };
  const logs = await source.getLogs(query);
  t.same(logs, await createEthereumSource(client).getLogs(query));
  t.ok(proxy.bodies.length <= 6, `${proxy.bodies.length} requests: one batch per halving`);
});

t.test('getLogs follows a suggested range', async (t) => {
  const { proxy, source } = await behindProxy(t, (c) => {
    if (c.method !== 'eth_getLogs' || getLogsRange(c) <= 10) return undefined;
    const from = Number((c.params[0] as { fromBlock: string }).fromBlock);
    return {
      error: { code: -32602, message: `Log response size exceeded. this block range should work: [0x${from.toString(16)}, 0x${(from + 9).toString(16)}]` },
    };
  });
  const query = { fromBlock: work.fromBlock, toBlock: work.toBlock, topics: [[TRANSFER]] };
  t.same(await source.getLogs(query), await createEthereumSource(client).getLogs(query));
  t.equal(proxy.bodies.length, 2);
});

t.test('getLogs gives up on a single block the provider refuses', async (t) => {
  const { source } = await behindProxy(t, (c) =>
    c.method === 'eth_getLogs' ? { error: { code: -32005, message: 'query returned more than 10000 results' } } : undefined,
  );
  await t.rejects(source.getLogs({ fromBlock: work.fromBlock, toBlock: work.fromBlock + 3 }), {
    code: 'RPC_LOG_RANGE_REFUSED',
    message: new RegExp(`single block ${work.fromBlock}`),
  });
});

t.test('getBlockLogs: every log of each block in one request, as eth_getLogs over the block', async (t) => {
  const { proxy, source } = await behindProxy(t);
  const some = heights.slice(0, 3);
  const lists = await source.getBlockLogs(some);
  t.equal(proxy.bodies.length, 1, 'one batch');
  t.same(
    lists.map((l) => l.length),
    [6, 6, 6],
    'transfers and approvals alike',
  );
  t.same(
    lists[1]!.map((l) => l.logIndex),
    [0, 1, 2, 3, 4, 5],
  );
  t.ok(lists.every((list, i) => list.every((l) => l.blockNumber === some[i])));
  t.same(await source.getBlockLogs([]), []);
});

t.test('receipts: by hash, by block, and without eth_getBlockReceipts', async (t) => {
  const blocks = await source.getBlocks(heights.slice(0, 3), { transactions: false });
  const hashes = blocks.flatMap((b) => b.transactionHashes);
  const receipts = await source.getReceipts(hashes);
  t.same(
    receipts.map((r) => r.transactionHash),
    hashes,
  );
  const r = receipts[0]!;
  t.match(r, { blockNumber: work.fromBlock, blockHash: blocks[0]!.hash, status: 1, to: work.token, contractAddress: null, type: 2 });
  t.type(r.gasUsed, 'bigint');
  t.type(r.effectiveGasPrice, 'bigint');
  const logs = await source.getLogs({ fromBlock: heights[0]!, toBlock: heights[2]! });
  t.same(
    receipts.flatMap((x) => x.logs),
    logs,
    'receipt logs equal eth_getLogs logs',
  );

  const byBlock = await source.getBlockReceipts(heights.slice(0, 3));
  t.same(byBlock.flat(), receipts);
  t.same(
    byBlock.map((rs) => rs.length),
    [6, 6, 6],
  );

  const { proxy, source: old } = await behindProxy(t, (c) =>
    c.method === 'eth_getBlockReceipts' ? { error: { code: -32601, message: 'the method eth_getBlockReceipts does not exist/is not available' } } : undefined,
  );
  t.same(await old.getBlockReceipts(heights.slice(0, 3)), byBlock);
  t.equal(proxy.bodies.length, 3, 'refused batch, then blocks and receipts in one batch each');
  await old.getBlockReceipts(heights.slice(0, 1));
  t.equal(proxy.bodies.length, 5, 'not asked again');
  await t.rejects(source.getReceipts([`0x${'ab'.repeat(32)}`]), { code: 'CHAIN_RECEIPT_NOT_FOUND' });
});

t.test('call is pinned to a height', async (t) => {
  const holder = work.senders[0]! as `0x${string}`;
  const data = encodeFunctionData({ abi: testErc20Abi, functionName: 'balanceOf', args: [holder] });
  const balanceAt = async (h: number) =>
    decodeFunctionResult({ abi: testErc20Abi, functionName: 'balanceOf', data: (await source.call({ to: work.token, data }, h)) as `0x${string}` });
  t.equal(await balanceAt(work.startBlock), 0n, 'before the mint');
  t.equal(await balanceAt(work.mintBlock), 10n ** 30n, 'right after the mint');
  t.ok((await balanceAt(work.toBlock)) < 10n ** 30n, 'after sending');
  await t.rejects(source.call({ to: work.token, data: '0xdeadbeef' }, work.toBlock), { code: 'RPC_ERROR', rpcCode: 3 });
});

import t from 'tap';
import { toEventSelector } from 'viem/utils';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { createEthereumSource } from '../infra/chains/ethereum/create-ethereum-source.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from './support/anvil.ts';
import { BACKENDS, PROGRAM_BACKEND } from './support/node-backends.ts';
import { call, post, shardPlace, startShard, waitForHeight } from './support/shard.ts';

const TRANSFER = toEventSelector('Transfer(address,address,uint256)');
const APPROVAL = toEventSelector('Approval(address,address,uint256)');
const hex = (n: number) => `0x${n.toString(16)}`;

const anvil = await anvilForTest(t);
const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
const workload = await makeErc20Workload(client, { blocks: 12, transfersPerBlock: 4, approvalsPerBlock: 1, senders: 3, recipients: 5 });
await client.request('anvil_mine', ['0x3']);
const head = Number(await client.request('eth_blockNumber'));
const someTx = (await client.request<{ transactions: string[] }>('eth_getBlockByNumber', [hex(workload.fromBlock + 2), false])).transactions[1]!;
const someBlockHash = (await client.request<{ hash: string }>('eth_getBlockByNumber', [hex(workload.fromBlock + 3), false])).hash;
const sender = workload.senders[0]!;
const senderTopic = `0x${sender.slice(2).padStart(64, '0')}`;

/** calls whose answers must be the upstream's, byte for byte */
const sameAsUpstream: [string, unknown[]][] = [
  ['eth_chainId', []],
  ['net_version', []],
  ['eth_blockNumber', []],
  ['eth_getBlockByNumber', ['0x0', true]],
  ['eth_getBlockByNumber', [hex(workload.startBlock), true]],
  ['eth_getBlockByNumber', [hex(workload.fromBlock), false]],
  ['eth_getBlockByNumber', [hex(workload.fromBlock + 1), true]],
  ['eth_getBlockByNumber', ['latest', true]],
  ['eth_getBlockByNumber', ['earliest', false]],
  ['eth_getBlockByNumber', [hex(head + 100), false]],
  ['eth_getBlockByHash', [someBlockHash, true]],
  ['eth_getBlockByHash', [someBlockHash, false]],
  ['eth_getBlockByHash', [`0x${'ab'.repeat(32)}`, false]],
  ['eth_getBlockTransactionCountByNumber', [hex(workload.fromBlock)]],
  ['eth_getBlockTransactionCountByHash', [someBlockHash]],
  ['eth_getBlockTransactionCountByHash', [`0x${'ab'.repeat(32)}`]],
  ['eth_getBlockReceipts', [hex(workload.startBlock)]],
  ['eth_getBlockReceipts', [hex(workload.fromBlock + 4)]],
  ['eth_getBlockReceipts', [hex(head + 100)]],
  ['eth_getTransactionByHash', [someTx]],
  ['eth_getTransactionByHash', [`0x${'cd'.repeat(32)}`]],
  ['eth_getTransactionReceipt', [someTx]],
  ['eth_getTransactionReceipt', [`0x${'cd'.repeat(32)}`]],
  ['eth_getTransactionByBlockNumberAndIndex', [hex(workload.fromBlock + 2), '0x3']],
  ['eth_getTransactionByBlockNumberAndIndex', [hex(workload.fromBlock + 2), '0x63']],
  ['eth_getTransactionByBlockHashAndIndex', [someBlockHash, '0x0']],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]],
  ['eth_getLogs', [{ fromBlock: hex(workload.fromBlock), toBlock: hex(workload.fromBlock + 3), address: workload.token }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), address: [workload.token, `0x${'11'.repeat(20)}`], topics: [APPROVAL] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), topics: [[TRANSFER, APPROVAL], senderTopic] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), topics: [null, null, senderTopic] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), topics: [TRANSFER, [senderTopic, `0x${'00'.repeat(32)}`]] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), topics: [[], null, null] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), address: [] }]],
  ['eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head), address: `0x${'11'.repeat(20)}` }]],
  ['eth_getLogs', [{ blockHash: someBlockHash }]],
  ['eth_getLogs', [{ blockHash: someBlockHash, topics: [APPROVAL] }]],
  ['eth_getLogs', [{ fromBlock: hex(workload.fromBlock + 5), toBlock: hex(workload.fromBlock + 2) }]],
  ['eth_syncing', []],
];

for (const kind of BACKENDS) {
  t.test(`${kind}: a full shard answers as the upstream does`, async (t) => {
    const shard = await startShard(t, anvil.url, await shardPlace(t, kind), ['--batch-size', '4']);
    await waitForHeight(shard.url, head);
    for (const [method, params] of sameAsUpstream) {
      const body = { jsonrpc: '2.0', id: 1, method, params };
      const [ours, theirs] = await Promise.all([post(shard.url, body), post(anvil.url, body)]);
      t.equal(ours.text, theirs.text, `${method} ${JSON.stringify(params)}`);
    }
    // the same calls as one batch: the same answers, in order
    const batch = sameAsUpstream.map(([method, params], i) => ({ jsonrpc: '2.0', id: i, method, params }));
    const [ours, theirs] = await Promise.all([post(shard.url, batch), post(anvil.url, batch)]);
    t.equal(ours.text, theirs.text, 'a batch of all of them');
    t.same((await call(shard.url, 'idx_dataInfo')).result, { desiredChainDataStart: 0, desiredChainDataEnd: null }, 'idx_dataInfo: the head unset');
    t.match(await call(shard.url, 'eth_getBlockByNumber', ['pending', false]), { result: { number: hex(head) } }, 'pending is latest');
    t.match(
      await call(shard.url, 'eth_getBlockByNumber', ['finalized', false]),
      { result: { number: (await client.request<{ number: string }>('eth_getBlockByNumber', ['finalized', false])).number } },
      'finalized comes from the upstream',
    );
  });
}

t.test('JSON-RPC 2.0 envelope: parse errors, invalid requests, unknown methods, bad params, notifications', async (t) => {
  const shard = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND));
  t.match((await post(shard.url, '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber"')).json, { jsonrpc: '2.0', id: null, error: { code: -32700 } });
  t.match((await post(shard.url, { jsonrpc: '2.0', id: 1, method: 5 })).json, { id: 1, error: { code: -32600 } });
  t.match((await post(shard.url, { id: 2, method: 'eth_blockNumber' })).json, { id: 2, error: { code: -32600 } }, 'jsonrpc is required');
  t.match((await post(shard.url, [])).json, { id: null, error: { code: -32600 } });
  t.match(await call(shard.url, 'eth_sendRawTransaction', ['0x00']), { error: { code: -32601 } }, 'only the data methods exist');
  t.match(await call(shard.url, 'eth_call', [{}, 'latest']), { error: { code: -32601 } });
  const invalid: [string, unknown[]][] = [
    ['eth_getBlockByNumber', ['0x1']],
    ['eth_getBlockByNumber', ['0xzz', false]],
    ['eth_getBlockByNumber', ['newest', false]],
    ['eth_getBlockByNumber', ['0x1', 'yes']],
    ['eth_getBlockByHash', ['0x1234', false]],
    ['eth_getTransactionByHash', []],
    ['eth_getTransactionByBlockNumberAndIndex', ['0x1', 'one']],
    ['eth_chainId', [1]],
    ['eth_getLogs', []],
    ['eth_getLogs', ['0x1']],
    ['eth_getLogs', [{ address: '0x12' }]],
    ['eth_getLogs', [{ topics: ['0x12'] }]],
    ['eth_getLogs', [{ topics: [null, null, null, null, null] }]],
    ['eth_getLogs', [{ blockHash: someBlockHash, fromBlock: '0x1' }]],
    ['admin_setEndHeight', ['ten']],
    ['admin_setStartHeight', [null]],
    ['idx_dataInfo', [1]],
  ];
  for (const [method, params] of invalid) {
    const answer = method.startsWith('admin_') ? await shard.admin(method, params) : await call(shard.url, method, params);
    t.match(answer, { error: { code: -32602, message: /\S/ } }, `${method} ${JSON.stringify(params)}`);
  }
  t.match(
    await post(shard.url, { jsonrpc: '2.0', id: 1, method: 'eth_blockNumber', params: { a: 1 } }),
    { json: { error: { code: -32602 } } },
    'params by name are refused',
  );

  const mixed = await post(shard.url, [
    { jsonrpc: '2.0', id: 'a', method: 'eth_chainId', params: [] },
    { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
    { jsonrpc: '2.0', id: 'b', method: 'nope', params: [] },
    42,
  ]);
  t.same(
    mixed.json.map((a: { id: unknown }) => a.id),
    ['a', 'b', null],
    'a batch answers every call but the notification, invalid members included',
  );
  const notes = await post(shard.url, [
    { jsonrpc: '2.0', method: 'eth_chainId', params: [] },
    { jsonrpc: '2.0', method: 'nope' },
  ]);
  t.equal(notes.status, 204, 'a batch of notifications: HTTP 204');
  t.equal(notes.text, '', 'and no body');
  const note = await post(shard.url, { jsonrpc: '2.0', method: 'admin_setStartHeight', params: ['bad'] });
  t.equal(note.status, 204, 'a lone notification, even a failing one: no answer');
});

t.test('a shard of [tail, head]: 4444 outside, tags, genesis, hash lookups, getLogs limits', async (t) => {
  const tail = workload.fromBlock + 2;
  const end = workload.fromBlock + 8;
  const shard = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND), [
    `-shardstart=${tail}`,
    `-shardend=${end}`,
    '--max-log-range',
    '3',
    '--max-log-results',
    '7',
  ]);
  await waitForHeight(shard.url, end);
  t.match(await call(shard.url, 'idx_dataInfo'), { result: { desiredChainDataStart: tail, desiredChainDataEnd: end } });
  t.equal((await call(shard.url, 'eth_blockNumber')).result, hex(end), 'latest is the head');
  t.match(await call(shard.url, 'eth_getBlockByNumber', ['earliest', false]), { result: { number: hex(tail) } }, 'earliest is the tail');
  t.match(await call(shard.url, 'eth_getBlockByNumber', ['latest', false]), { result: { number: hex(end) } });
  const below = await call(shard.url, 'eth_getBlockByNumber', [hex(tail - 1), false]);
  t.same(below.error, { code: 4444, message: `pruned history unavailable: requested ${tail - 1}, earliest available ${tail}` });
  const above = await call(shard.url, 'eth_getBlockReceipts', [hex(end + 1)]);
  t.same(above.error, { code: 4444, message: `pruned history unavailable: requested ${end + 1}, latest available ${end}` });
  t.match(await call(shard.url, 'eth_getTransactionByBlockNumberAndIndex', [hex(1), '0x0']), { error: { code: 4444 } });
  t.match(await call(shard.url, 'eth_getBlockTransactionCountByNumber', [hex(end + 5)]), { error: { code: 4444 } });
  const genesis = { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: ['0x0', false] };
  t.equal((await post(shard.url, genesis)).text, (await post(anvil.url, genesis)).text, 'genesis is always served');
  const outsideTx = (await client.request<{ transactions: string[] }>('eth_getBlockByNumber', [hex(tail - 1), false])).transactions[0]!;
  t.match(await call(shard.url, 'eth_getTransactionByHash', [outsideTx]), { result: null }, 'a transaction outside the range is unknown');
  t.match(await call(shard.url, 'eth_getTransactionReceipt', [outsideTx]), { result: null });
  t.match(await call(shard.url, 'eth_getBlockByHash', [(await client.request<{ hash: string }>('eth_getBlockByNumber', [hex(end + 1), false])).hash, false]), {
    result: null,
  });
  const inside = { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [hex(tail + 1), true] };
  t.equal((await post(shard.url, inside)).text, (await post(anvil.url, inside)).text, 'inside the range: as the upstream');

  t.match(await call(shard.url, 'eth_getLogs', [{ fromBlock: hex(tail - 1), toBlock: hex(tail) }]), { error: { code: 4444, message: /earliest available/ } });
  t.match(await call(shard.url, 'eth_getLogs', [{ fromBlock: hex(end), toBlock: hex(end + 1) }]), { error: { code: 4444, message: /latest available/ } });
  const wide = await call(shard.url, 'eth_getLogs', [{ fromBlock: hex(tail), toBlock: hex(tail + 4) }]);
  t.same(wide.error, {
    code: -32005,
    message: `exceed maximum block range: 3 blocks per eth_getLogs, asked for 5; try with this block range [${hex(tail)}, ${hex(tail + 2)}]`,
  });
  const many = await call(shard.url, 'eth_getLogs', [{ fromBlock: hex(tail), toBlock: hex(tail + 2) }]);
  t.same(
    many.error,
    {
      code: -32005,
      message: `query returned more than 7 results. Try with this block range [${hex(tail)}, ${hex(tail)}].`,
      data: { from: hex(tail), to: hex(tail) },
    },
    '5 logs a block: only the first block fits',
  );

  // the node's own client reads these refusals and narrows its queries until it has every log
  const source = createEthereumSource(createRpcClient({ endpoints: [{ url: shard.url }] }));
  const logs = await source.getLogs({ fromBlock: tail, toBlock: end, topics: [[TRANSFER]] });
  t.equal(logs.length, (end - tail + 1) * 4, 'every Transfer of the range, through the limits');
  t.same(
    logs.map((l) => l.blockNumber),
    [...logs.map((l) => l.blockNumber)].sort((a, b) => a - b),
    'in chain order',
  );
});

t.test('batch amplification is bounded: answers stop at --max-response-bytes with -32003 and the shard keeps answering others', async (t) => {
  const shard = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND), ['--max-response-bytes', '200000', '--max-batch-calls', '2000']);
  await waitForHeight(shard.url, head);
  const getLogs = { jsonrpc: '2.0', method: 'eth_getLogs', params: [{ fromBlock: hex(workload.fromBlock), toBlock: hex(head) }] };
  const one = await post(shard.url, { ...getLogs, id: 0 });
  const size = one.text.length;
  t.ok(size > 10_000 && size < 200_000, `one eth_getLogs of every log answers ${size} bytes`);

  const calls = Array.from({ length: 1000 }, (_, id) => ({ ...getLogs, id }));
  const started = performance.now();
  const batchAnswer = post(shard.url, calls);
  await new Promise((r) => setTimeout(r, 20));
  const meanwhile = performance.now();
  t.match(await call(shard.url, 'eth_blockNumber'), { result: hex(head) }, 'another client is answered while the batch runs');
  const waited = performance.now() - meanwhile;
  const batch = (await batchAnswer).json as any[];
  const elapsed = performance.now() - started;
  t.ok(waited < 1000, `in ${Math.round(waited)} ms`);
  t.equal(batch.length, 1000, 'every call is answered');
  const full = batch.filter((a) => Array.isArray(a.result));
  t.ok(full.length >= 1 && full.length <= Math.floor(200_000 / size), `${full.length} full answers fit`);
  t.ok(
    batch
      .slice(full.length)
      .every((a) => a.error?.code === -32003 && /answers of this batch reached this server's limit of 200000 bytes/.test(a.error.message)),
    'the rest are -32003 response too large',
  );
  t.ok((await batchAnswer).text.length < 200_000 + 1000 * 250, 'the whole answer stays near the bound');
  t.ok(elapsed < 5000, `the batch took ${Math.round(elapsed)} ms`);

  t.equal(
    (await call(shard.url, 'eth_getLogs', [{ fromBlock: hex(workload.fromBlock), toBlock: hex(head) }])).result.length,
    one.json.result.length,
    'a single call under the bound is answered in full',
  );
  const big = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND), ['--max-response-bytes', String(size - 100)]);
  await waitForHeight(big.url, head);
  const over = await call(big.url, 'eth_getLogs', [{ fromBlock: hex(workload.fromBlock), toBlock: hex(head) }]);
  t.match(
    over,
    {
      error: {
        code: -32005,
        message: new RegExp(
          `^query returned more than ${size - 100} bytes of logs \\(\\d+ logs fit\\)\\. Try with this block range \\[${hex(workload.fromBlock)}, 0x[0-9a-f]+\\]\\.$`,
        ),
      },
    },
    'one eth_getLogs over the bound: refused with the range that fits, as the result count',
  );
  const narrower = await call(big.url, 'eth_getLogs', [{ fromBlock: over.error.data.from, toBlock: over.error.data.to }]);
  t.ok(Array.isArray(narrower.result) && narrower.result.length > 0, 'and that range is answered');
  const logs = await createEthereumSource(createRpcClient({ endpoints: [{ url: big.url }] })).getLogs({ fromBlock: workload.fromBlock, toBlock: head });
  t.equal(logs.length, one.json.result.length, "idx-node's client narrows its queries until it has every log");
  const blocks = await call(big.url, 'eth_getBlockByNumber', [hex(workload.startBlock), true]);
  t.ok(blocks.result !== undefined, 'other answers under the bound pass');
  t.match(
    await post(
      shard.url,
      Array.from({ length: 2001 }, (_, id) => ({ ...getLogs, id })),
    ),
    { json: { error: { code: -32600, message: /at most 2000 per batch/ } } },
    '--max-batch-calls',
  );
});

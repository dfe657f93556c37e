import t from 'tap';
import { startLocalServer, type JsonRpcRequest } from '../../test/support/local-rpc-server.ts';
import { createRpcClient } from './create-rpc-client.ts';
import { ETHEREUM_RANGED_METHODS } from '../chains/ethereum/ranged-methods.ts';
import { blockNeed as blockNeedIn, eligible, parseDataInfo, rangedMethodIndex, splitHeights, type EndpointRange, type RangedCall } from './endpoint-ranges.ts';

// the EVM family's methods, as idx-shard serves them
const methods = rangedMethodIndex(ETHEREUM_RANGED_METHODS);
const blockNeed = (call: RangedCall) => blockNeedIn(call, methods);

t.test('blockNeed: the blocks a call reads', async (t) => {
  t.same(blockNeed({ method: 'eth_getBlockByNumber', params: ['0x10', false] }), { kind: 'heights', from: 16, to: 16 });
  t.same(blockNeed({ method: 'eth_getBlockByNumber', params: ['0x0', false] }), { kind: 'any' }, 'every shard has genesis');
  t.same(blockNeed({ method: 'eth_getBlockByNumber', params: ['finalized', false] }), { kind: 'head' });
  t.same(blockNeed({ method: 'eth_call', params: [{}, '0x5'] }), { kind: 'full-node' }, 'state reads: shards have no state');
  t.same(blockNeed({ method: 'eth_getBlockReceipts', params: [`0x${'1'.repeat(64)}`] }), { kind: 'any' }, 'a block hash names no height');
  t.same(blockNeed({ method: 'eth_blockNumber' }), { kind: 'head' });
  t.same(blockNeed({ method: 'eth_chainId' }), { kind: 'any' });
  t.same(blockNeed({ method: 'eth_getLogs', params: [{ fromBlock: '0x2', toBlock: '0x9' }] }), { kind: 'heights', from: 2, to: 9 });
  t.same(blockNeed({ method: 'eth_getLogs', params: [{ fromBlock: '0x2' }] }), { kind: 'heights', from: 2, to: Number.POSITIVE_INFINITY });
  t.same(blockNeed({ method: 'eth_getLogs', params: [{}] }), { kind: 'head' });
  t.same(blockNeed({ method: 'eth_getLogs', params: [{ blockHash: `0x${'1'.repeat(64)}` }] }), { kind: 'any' });
});

t.test('parseDataInfo, eligible, splitHeights', async (t) => {
  t.same(parseDataInfo({ desiredChainDataStart: 5, desiredChainDataEnd: null }), { start: 5, end: null });
  t.same(parseDataInfo({ desiredChainDataStart: 5, desiredChainDataEnd: 0 }), { start: 5, end: null });
  t.same(parseDataInfo({ desiredChainDataStart: 0, desiredChainDataEnd: 9 }), { start: 0, end: 9 });
  t.equal(parseDataInfo({ desiredChainDataStart: '5' }), undefined);
  t.equal(parseDataInfo(null), undefined);

  const shards: EndpointRange[] = [
    { start: 0, end: 100 },
    { start: 101, end: null },
  ];
  t.same(eligible(shards, { kind: 'heights', from: 50, to: 60 }), [0]);
  t.same(eligible(shards, { kind: 'heights', from: 150, to: 150 }), [1]);
  t.same(eligible(shards, { kind: 'heights', from: 90, to: 110 }), [], 'a span across shards: nobody alone');
  t.same(eligible(shards, { kind: 'head' }), [1]);
  t.same(
    eligible(
      [
        { start: 0, end: 10 },
        { start: 5, end: 20 },
      ],
      { kind: 'head' },
    ),
    [1],
    'without a shard following the chain: the one reaching highest',
  );
  t.same(eligible([...shards, undefined], { kind: 'heights', from: 90, to: 110 }), [2], 'a full node holds everything');
  t.same(eligible(shards, { kind: 'any' }), [0, 1]);
  t.same(eligible([...shards, undefined], { kind: 'full-node' }), [2]);
  t.same(eligible(shards, { kind: 'full-node' }), [0, 1], 'only shards: let them answer');
  t.same(splitHeights(shards, 90, 110), [
    { from: 90, to: 100 },
    { from: 101, to: 110 },
  ]);
  t.same(splitHeights(shards, 90, Number.POSITIVE_INFINITY), [
    { from: 90, to: 100 },
    { from: 101, to: Number.POSITIVE_INFINITY },
  ]);
  t.equal(
    splitHeights(
      [
        { start: 0, end: 10 },
        { start: 20, end: null },
      ],
      5,
      25,
    ),
    undefined,
    'a gap no shard holds',
  );
});

/** A fake shard: answers idx_dataInfo with its range and eth_getBlockByNumber/eth_getLogs with its name, 4444 outside. */
async function shard(t: Parameters<typeof startLocalServer>[0], name: string, range: () => EndpointRange | 'full') {
  return startLocalServer(t, (body) => {
    const calls = (Array.isArray(body) ? body : [body]) as JsonRpcRequest[];
    const out = calls.map((c) => {
      const r = range();
      if (c.method === 'idx_dataInfo') {
        if (r === 'full') return { jsonrpc: '2.0', id: c.id, error: { code: -32601, message: 'Method not found' } };
        return { jsonrpc: '2.0', id: c.id, result: { desiredChainDataStart: r.start, desiredChainDataEnd: r.end } };
      }
      const f = c.params[0] as { fromBlock?: string; toBlock?: string } | string;
      const [from, to] = typeof f === 'string' ? [Number(f), Number(f)] : [Number(f.fromBlock), f.toBlock === 'latest' ? 1e9 : Number(f.toBlock)];
      if (r !== 'full' && (from < r.start || (r.end !== null && to > r.end)))
        return { jsonrpc: '2.0', id: c.id, error: { code: 4444, message: `pruned history unavailable: requested ${from}` } };
      return {
        jsonrpc: '2.0',
        id: c.id,
        result: c.method === 'eth_getLogs' ? [`${name}:${from}-${typeof f === 'string' ? from : f.toBlock}`] : `${name}:${from}`,
      };
    });
    return { json: Array.isArray(body) ? out : out[0] };
  });
}

t.test('a client over shards sends each call to the shard holding its blocks', async (t) => {
  let lowRange: EndpointRange = { start: 0, end: 100 };
  const low = await shard(t, 'low', () => lowRange);
  let highRange: EndpointRange = { start: 101, end: null };
  const high = await shard(t, 'high', () => highRange);
  const full = await shard(t, 'full', () => 'full');
  const client = createRpcClient({
    endpoints: [{ url: low.url }, { url: high.url }],
    routeByRange: ETHEREUM_RANGED_METHODS,
    retries: 1,
    backoffMs: 1,
    cooldownMs: 1,
  });
  const heights = [5, 150, 100, 101, 7];
  t.same(await client.batch(heights.map((h) => ({ method: 'eth_getBlockByNumber', params: [`0x${h.toString(16)}`, false] }))), [
    'low:5',
    'high:150',
    'low:100',
    'high:101',
    'low:7',
  ]);
  t.same(
    await client.request('eth_getLogs', [{ fromBlock: '0x5a', toBlock: '0x6e' }]),
    ['low:90-0x64', 'high:101-0x6e'],
    'a getLogs span across shards is cut and joined',
  );
  t.same(await client.request('eth_getLogs', [{ fromBlock: '0x5a', toBlock: 'latest' }]), ['low:90-0x64', 'high:101-latest']);
  t.same(await client.request('eth_getBlockByNumber', ['latest', false]), 'high:NaN', 'the newest block: the shard that follows the chain');
  t.equal(low.bodies.filter((b) => JSON.stringify(b).includes('idx_dataInfo')).length, 1, 'ranges are asked once');

  // the shards' ranges move: a 4444 makes the client ask again and go to the shard that holds the block now
  lowRange = { start: 0, end: 50 };
  highRange = { start: 51, end: null };
  t.same(await client.request('eth_getBlockByNumber', ['0x46', false]), 'high:70');
  t.equal(low.bodies.filter((b) => JSON.stringify(b).includes('idx_dataInfo')).length, 2, 'after a 4444 the ranges are asked again');

  const mixed = createRpcClient({
    endpoints: [{ url: low.url }, { url: high.url }, { url: full.url }],
    routeByRange: ETHEREUM_RANGED_METHODS,
    retries: 1,
    backoffMs: 1,
    cooldownMs: 1,
  });
  t.same(await mixed.request('eth_getLogs', [{ fromBlock: '0x0', toBlock: '0x3c' }]), ['full:0-0x3c'], 'a full node (no idx_dataInfo) holds everything');
});

t.test('without routeByRange, or with one endpoint, nothing is asked', async (t) => {
  const low = await shard(t, 'low', () => ({ start: 0, end: 100 }));
  const high = await shard(t, 'high', () => ({ start: 101, end: null }));
  await createRpcClient({ endpoints: [{ url: low.url }, { url: high.url }] }).request('eth_getBlockByNumber', ['0x5', false]);
  await createRpcClient({ endpoints: [{ url: low.url }], routeByRange: ETHEREUM_RANGED_METHODS }).request('eth_getBlockByNumber', ['0x5', false]);
  t.notOk([...low.bodies, ...high.bodies].some((b) => JSON.stringify(b).includes('idx_dataInfo')));
});

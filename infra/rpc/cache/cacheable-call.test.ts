import t from 'tap';
import { ETHEREUM_CACHE_RULES as EVM } from '../../chains/ethereum/rpc-cache-rules.ts';
import { SUBSTRATE_CACHE_RULES as SUBSTRATE } from '../../chains/substrate/rpc-cache-rules.ts';
import { blockParam, cacheLookup, cacheSlot, callKey, stableJson } from './cacheable-call.ts';

const HASH = `0x${'ab'.repeat(32)}`;
const block = { number: '0x5', hash: HASH };

t.test('a block parameter: a height, a hash, or nothing fixed', async (t) => {
  t.same(blockParam('0x1b'), { height: 27 });
  t.same(blockParam(27), { height: 27 });
  t.same(blockParam(HASH), { hash: HASH });
  t.same(blockParam({ blockHash: HASH }), { hash: HASH });
  t.same(blockParam({ blockNumber: '0x2' }), { height: 2 });
  for (const tag of ['latest', 'finalized', 'safe', 'pending', 'earliest', undefined, null, -1, '0x'])
    t.equal(blockParam(tag), undefined, `${String(tag)} names no fixed block`);
});

t.test('by height: kept only at or below the final height when the answer came', async (t) => {
  const call = { method: 'eth_getBlockByNumber', params: ['0x5', false] };
  t.ok(cacheLookup(EVM, call));
  t.same(cacheSlot(EVM, call, block, 5), { key: callKey(call) });
  t.equal(cacheSlot(EVM, call, block, 4), undefined, 'above finality: may still be reorganised away');
  t.equal(cacheSlot(EVM, call, null, 10), undefined, 'an empty answer is never kept');
  const tagged = { method: 'eth_getBlockByNumber', params: ['finalized', false] };
  t.equal(cacheLookup(EVM, tagged), undefined, 'a tag is never looked up');
  t.equal(cacheSlot(EVM, tagged, block, 100), undefined, 'nor kept');
  t.equal(cacheSlot(EVM, { method: 'eth_call', params: [{ to: '0x1' }, '0x9'] }, '0x', 8), undefined);
  t.ok(cacheSlot(EVM, { method: 'eth_call', params: [{ to: '0x1' }, '0x8'] }, '0x', 8));
});

t.test('by hash: fixed forever, whatever the height', async (t) => {
  t.ok(cacheSlot(EVM, { method: 'eth_getBlockByHash', params: [HASH, true] }, block, -1));
  t.ok(cacheSlot(SUBSTRATE, { method: 'chain_getBlock', params: [HASH] }, {}, -1));
  t.ok(cacheSlot(SUBSTRATE, { method: 'state_getStorage', params: ['0x26aa', HASH] }, '0x00', -1));
  t.equal(cacheLookup(SUBSTRATE, { method: 'chain_getBlock', params: [] }), undefined, 'no hash: the head');
  t.equal(cacheLookup(SUBSTRATE, { method: 'state_getRuntimeVersion' }), undefined);
  t.equal(cacheLookup(SUBSTRATE, { method: 'chain_getFinalizedHead', params: [] }), undefined, 'not in the rules: never');
  t.ok(cacheSlot(SUBSTRATE, { method: 'chain_getBlockHash', params: [7] }, HASH, 7));
  t.equal(cacheSlot(SUBSTRATE, { method: 'chain_getBlockHash', params: [8] }, HASH, 7), undefined);
});

t.test("found by a transaction's hash: kept once its block is final", async (t) => {
  const call = { method: 'eth_getTransactionReceipt', params: [HASH] };
  t.ok(cacheSlot(EVM, call, { blockNumber: '0x5' }, 5));
  t.equal(cacheSlot(EVM, call, { blockNumber: '0x6' }, 5), undefined);
  t.equal(cacheSlot(EVM, call, null, 5), undefined, 'not mined yet');
});

t.test('log ranges: a span of the filter without its range, kept once the range is final', async (t) => {
  const call = { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0xa', address: '0xc0', topics: ['0xdd'] }] };
  const same = { method: 'eth_getLogs', params: [{ topics: ['0xdd'], address: '0xc0', fromBlock: '0x1', toBlock: '0xa' }] };
  const other = { method: 'eth_getLogs', params: [{ fromBlock: '0x5', toBlock: '0x8', address: '0xc0', topics: ['0xdd'] }] };
  const slot = cacheSlot(EVM, call, [], 10)!;
  t.equal(slot.key, callKey(same), 'the key does not depend on the order of the filter');
  t.same(slot.span, { filter: cacheLookup(EVM, other)!.span!.filter, from: 1, to: 10 }, 'another range of the filter: the same filter');
  t.not(cacheLookup(EVM, { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: '0xa' }] })!.span!.filter, slot.span!.filter);
  t.equal(cacheSlot(EVM, call, [], 9), undefined, 'reaches above finality');
  t.equal(cacheSlot(EVM, { method: 'eth_getLogs', params: [{ fromBlock: '0x1', toBlock: 'latest' }] }, [], 100), undefined);
  t.ok(cacheSlot(EVM, { method: 'eth_getLogs', params: [{ blockHash: HASH }] }, [], -1), 'by block hash: fixed');
  t.equal(stableJson({ b: 1, a: [1, { d: 2, c: undefined }] }), '{"a":[1,{"d":2}],"b":1}');
});

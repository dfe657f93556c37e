import t from 'tap';
import { parseLogRangeRefusal } from './log-range-refusal.ts';
import { RpcError } from '../../rpc/rpc-error.ts';

const range = { fromBlock: 1_000_000, toBlock: 1_099_999 };
const refusal = (code: number, message: string, data?: unknown) => parseLogRangeRefusal(new RpcError('eth_getLogs', { code, message, data }), range);

t.test('providers that state a block limit', async (t) => {
  t.same(refusal(-32614, 'eth_getLogs is limited to a 10,000 range'), { maxBlocks: 10_000 });
  t.same(refusal(-32000, 'exceed maximum block range: 50000'), { maxBlocks: 50_000 });
  t.same(refusal(-32000, 'block range too large, range: 100000, max: 10000'), { maxBlocks: 10_000 });
  t.same(refusal(-32600, 'ranges over 5000 blocks are not supported'), { maxBlocks: 5_000 });
  t.same(refusal(-32000, 'block range greater than 2000 max'), { maxBlocks: 2_000 });
  t.same(refusal(-32602, 'query exceeds max block range 1000'), { maxBlocks: 1_000 });
  t.same(refusal(-32000, 'Max range: 3500'), { maxBlocks: 3_500 });
  t.same(refusal(-32000, 'maximum [from, to] blocks distance: 3500'), { maxBlocks: 3_500 });
});

t.test('providers that suggest a range, or only refuse', async (t) => {
  t.same(refusal(-32005, 'query returned more than 10000 results. Try with this block range [0xF4240, 0xF4A10].'), { suggestedToBlock: 0xf4a10 });
  t.same(refusal(-32005, 'query returned more than 10000 results', { from: '0xf4240', to: '0xf4400', limit: 10000 }), { suggestedToBlock: 0xf4400 });
  t.same(
    refusal(
      -32602,
      'Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range and no limit on the response size, or you can request any block range with a cap of 10K logs in the response. Based on your parameters and the response size limit, this block range should work: [0xf4240, 0xf4a0f]',
    ),
    { suggestedToBlock: 0xf4a0f, maxBlocks: 2_000 },
  );
  t.same(refusal(-32005, 'query returned more than 10000 results'), {}, 'halve');
  t.same(refusal(-32000, 'block range is too wide'), {});
  t.same(refusal(-32000, 'request timed out'), {});
});

t.test('other errors are not range refusals', async (t) => {
  t.equal(refusal(-32602, 'invalid argument 0: hex string without 0x prefix'), null);
  t.equal(refusal(-32005, 'daily request count exceeded, request rate limited'), null, 'a rate limit is retried, not split');
  t.equal(refusal(429, 'Your app has exceeded its compute units per second capacity'), null);
  t.equal(parseLogRangeRefusal(new Error('block range is too wide'), range), null, 'only JSON-RPC errors');
});

t.test('hints that would not narrow the range are ignored', async (t) => {
  t.same(refusal(-32000, 'exceed maximum block range: 500000'), {}, 'limit above the asked span');
  t.same(refusal(-32005, 'Try with this block range [0xf4240, 0x10c8e0]'), {}, 'suggestion past the end');
});

import t from 'tap';
import { RpcError } from './rpc-error.ts';
import { ETHEREUM_RANGED_METHODS } from '../chains/ethereum/ranged-methods.ts';
import { rangedMethodIndex, type EndpointRange } from './endpoint-ranges.ts';
import type { RpcCall } from './json-rpc-transport.ts';
import { joinRouted, routeCalls as routeCallsBy } from './route-calls.ts';

// the EVM family's methods, as idx-shard serves them
const methods = rangedMethodIndex(ETHEREUM_RANGED_METHODS);
const routeCalls = (calls: readonly RpcCall[], ranges: readonly (EndpointRange | undefined)[]) => routeCallsBy(calls, ranges, methods);

// endpoint 0 keeps blocks 0–99, endpoint 1 keeps 100 onwards
const shards = [
  { start: 0, end: 99 },
  { start: 100, end: null },
];

t.test('a call goes to the shards holding its block; calls with the same targets go together', async (t) => {
  const plan = routeCalls(
    [
      { method: 'eth_getBlockByNumber', params: ['0x5', false] },
      { method: 'eth_getBlockByNumber', params: ['0x96', false] },
      { method: 'eth_getBlockByNumber', params: ['0x6', false] },
    ],
    shards,
  );
  t.same(
    plan.parts.map((p) => p.targets),
    [[0], [1], [0]],
  );
  t.same(plan.partsOf, [[0], [1], [2]]);
  t.same(plan.groups, [[0, 2], [1]]);
});

t.test('an eth_getLogs span no shard holds whole is cut where they meet, the pieces joined in order', async (t) => {
  const plan = routeCalls([{ method: 'eth_getLogs', params: [{ address: '0xa', fromBlock: '0x50', toBlock: 'latest' }] }], shards);
  t.same(plan.parts, [
    { call: { method: 'eth_getLogs', params: [{ address: '0xa', fromBlock: '0x50', toBlock: '0x63' }] }, targets: [0] },
    { call: { method: 'eth_getLogs', params: [{ address: '0xa', fromBlock: '0x64', toBlock: 'latest' }] }, targets: [1] },
  ]);
  t.same(plan.partsOf, [[0, 1]]);
  t.same(
    joinRouted(plan.partsOf, [
      { ok: true, value: ['a'], endpoint: 'one' },
      { ok: true, value: ['b', 'c'], endpoint: 'two' },
    ]),
    [{ ok: true, value: ['a', 'b', 'c'], endpoint: 'one, two' }],
  );
  const error = new RpcError('eth_getLogs', { code: 4444, message: 'outside' });
  t.same(
    joinRouted(plan.partsOf, [
      { ok: true, value: [] },
      { ok: false, error },
    ]),
    [{ ok: false, error }],
    'a piece failed: the call failed',
  );
});

t.test('a call nobody holds goes to every endpoint, so that the answer says why', async (t) => {
  const plan = routeCalls([{ method: 'eth_call', params: [{}, 'latest'] }], shards);
  t.same(plan.parts[0]!.targets, [0, 1]);
});

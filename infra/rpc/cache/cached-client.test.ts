import t, { type Test } from 'tap';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ETHEREUM_CACHE_RULES } from '../../chains/ethereum/rpc-cache-rules.ts';
import type { RpcCall, RpcClient } from '../create-rpc-client.ts';
import { RpcError } from '../rpc-error.ts';
import { cachedClient, RPC_CACHE_ENDPOINT } from './cached-client.ts';
import { openRpcCacheStore } from './rpc-cache-store.ts';

const CHAIN = `0x${'56'.repeat(32)}`;
const q = (n: number) => `0x${n.toString(16)}`;

/** A chain stand-in whose blocks carry a `branch` mark: a reorganisation changes it above some height. */
function chain() {
  const asked: RpcCall[] = [];
  let branch = 'a';
  const answer = (c: RpcCall) => {
    asked.push(c);
    if (c.method === 'eth_call') return { ok: false as const, error: new RpcError('eth_call', { code: 3, message: 'execution reverted' }) };
    if (c.method === 'eth_getLogs') {
      const f = c.params![0] as { fromBlock: string; toBlock: string };
      const logs = [];
      for (let h = Number(f.fromBlock); h <= Number(f.toBlock); h++) logs.push({ blockNumber: q(h), logIndex: '0x0', branch });
      return { ok: true as const, value: logs, endpoint: 'http://node' };
    }
    return { ok: true as const, value: { number: c.params![0], branch }, endpoint: 'http://node' };
  };
  const client: RpcClient = {
    endpoints: ['http://node'],
    distrust: () => undefined,
    batchSettled: async (calls) => calls.map(answer),
    batchEach: async (calls) => [{ endpoint: 'http://node', settled: calls.map(answer) }],
    request: async () => undefined as never,
    batch: async () => [],
  };
  return { client, asked, reorg: (to: string) => (branch = to) };
}

async function setup(t: Test) {
  const root = await mkdtemp(join(tmpdir(), 'idx-cached-client-'));
  const store = await openRpcCacheStore({ root, chain: CHAIN, maxBytes: 2 ** 20 });
  // the answers a test's last calls keep are written in the background: the folder goes once they are
  t.teardown(async () => {
    await store.flush();
    await rm(root, { recursive: true, force: true });
  });
  const c = chain();
  let finalized = 5;
  const client = cachedClient(c.client, { rules: ETHEREUM_CACHE_RULES, store: () => store, finalized: () => finalized });
  return { ...c, client, store, root, setFinal: (h: number) => (finalized = h) };
}

t.test('a final block is asked once; an unfinalized one is asked live every time, so a reorganised height is never served', async (t) => {
  const s = await setup(t);
  const calls = [4, 5, 6, 7].map((h) => ({ method: 'eth_getBlockByNumber', params: [q(h), false] }));
  await s.client.batch(calls);
  await s.store.flush();
  s.asked.length = 0;
  s.reorg('b');
  const again = await s.client.batchSettled(calls);
  t.same(
    s.asked.map((c) => c.params![0]),
    ['0x6', '0x7'],
    'only the heights above finality reach the endpoint',
  );
  t.same(
    again.map((a) => (a.ok ? [a.endpoint, (a.value as { branch: string }).branch] : a)),
    [
      [RPC_CACHE_ENDPOINT, 'a'],
      [RPC_CACHE_ENDPOINT, 'a'],
      ['http://node', 'b'],
      ['http://node', 'b'],
    ],
  );
  t.same(await s.client.request('eth_getBlockByNumber', ['latest', false]), { number: 'latest', branch: 'b' }, 'tags always go to the endpoint');
});

t.test('errors are never kept; batchEach always asks the endpoints', async (t) => {
  const s = await setup(t);
  const call = { method: 'eth_call', params: [{ to: '0x1' }, '0x1'] };
  await s.client.batchSettled([call]);
  await s.store.flush();
  await s.client.batchSettled([call]);
  await s.client.batchEach([{ method: 'eth_getBlockByNumber', params: ['0x1', false] }]);
  t.equal(s.asked.length, 3);
});

t.test('a log range cut differently in a later run is served from the ranges kept, when they cover it', async (t) => {
  const s = await setup(t);
  s.setFinal(100);
  const logs = (from: number, to: number) => ({ method: 'eth_getLogs', params: [{ fromBlock: q(from), toBlock: q(to), address: '0xc0' }] });
  await s.client.batch([logs(1, 10), logs(11, 20), logs(21, 30)]);
  await s.store.flush();
  s.asked.length = 0;
  const [got] = await s.client.batch<{ blockNumber: string }[]>([logs(8, 24)]);
  t.same(
    got!.map((l) => Number(l.blockNumber)),
    [8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24],
  );
  t.equal(s.asked.length, 0, 'nothing asked');
  await s.client.batch([logs(25, 35)]);
  t.equal(s.asked.length, 1, 'a range reaching past what is kept is asked whole');
  await s.client.batch([{ method: 'eth_getLogs', params: [{ fromBlock: q(8), toBlock: q(9), address: '0xdd' }] }]);
  t.equal(s.asked.length, 2, 'another filter is another question');
});

t.test('when an answer from the cache proves wrong, the cache serves nothing more', async (t) => {
  const s = await setup(t);
  const call = { method: 'eth_getBlockByNumber', params: ['0x1', false] };
  await s.client.batch([call]);
  await s.store.flush();
  const [first] = await s.client.batchSettled([call]);
  t.equal(first!.ok && first!.endpoint, RPC_CACHE_ENDPOINT);
  s.client.distrust(RPC_CACHE_ENDPOINT);
  const [second] = await s.client.batchSettled([call]);
  t.equal(second!.ok && second!.endpoint, 'http://node');
});

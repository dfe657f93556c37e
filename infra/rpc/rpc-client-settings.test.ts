import t from 'tap';
import { chunkCalls, describeCalls } from './failover-sender.ts';
import { rpcClientSettings } from './rpc-client-settings.ts';

const methods = { served: ['m'], head: [], blockParam: {}, spans: [] };

t.test('defaults filled in; routing only among several endpoints', async (t) => {
  t.same(rpcClientSettings({ endpoints: [{ url: 'http://a' }] }), {
    timeoutMs: 30_000,
    maxBatchSize: 100,
    retries: 3,
    backoffMs: 250,
    maxBackoffMs: 10_000,
    cooldownMs: 2_000,
    maxCooldownMs: 60_000,
    concurrency: 4,
    routing: undefined,
    rangeRefreshMs: 30_000,
  });
  const two = [{ url: 'http://a' }, { url: 'https://b' }];
  t.equal(rpcClientSettings({ endpoints: [{ url: 'http://a' }], routeByRange: methods }).routing, undefined, 'one endpoint: nothing to route');
  t.equal(rpcClientSettings({ endpoints: two, routeByRange: methods }).routing, methods);
  t.match(rpcClientSettings({ endpoints: two, maxBatchSize: 0, concurrency: -1, retries: 0 }), { maxBatchSize: 1, concurrency: 1, retries: 0 });
});

t.test('no endpoint, or one that is not http(s): refused, the URL redacted', async (t) => {
  t.throws(() => rpcClientSettings({ endpoints: [] }), { code: 'RPC_NO_ENDPOINTS' });
  const err = t.throws(() => rpcClientSettings({ endpoints: [{ url: 'wss://user:secret@node.example/ws' }] })) as Error;
  t.match(err, { code: 'RPC_BAD_ENDPOINT' });
  t.notMatch(err.message, /secret/);
});

t.test('calls cut into batches in order; a failure names its calls', async (t) => {
  const calls = Array.from({ length: 5 }, (_, i) => ({ method: `m${i % 2}` }));
  t.same(
    chunkCalls(calls, 2).map((c) => c.length),
    [2, 2, 1],
  );
  t.same(chunkCalls([], 2), []);
  t.equal(describeCalls([{ method: 'eth_chainId' }]), 'eth_chainId');
  t.equal(describeCalls(calls), 'a batch of 5 calls (m0, m1)');
});

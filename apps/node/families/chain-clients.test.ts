import t from 'tap';
import { IdxError } from '../../../domain/errors.ts';
import { RpcUnreachableError } from '../../../infra/rpc/rpc-error.ts';
import { chainClients, chainUnreachable } from './chain-clients.ts';

t.test("the manifest's endpoints: URLs rewritten, headers kept, the smallest batchSize for every batch", async (t) => {
  const { rpc } = chainClients(
    {
      chainId: '1',
      endpoints: [{ url: 'ws://a:9944', headers: { 'x-key': 'k' }, batchSize: 20 }, { url: 'ws://b:9944', batchSize: 5 }, { url: 'ws://c:9944' }],
    },
    (url) => url.replace('ws://', 'http://'),
  );
  t.same(rpc.endpoints, [{ url: 'http://a:9944', headers: { 'x-key': 'k' } }, { url: 'http://b:9944' }, { url: 'http://c:9944' }]);
  t.equal(rpc.maxBatchSize, 5);
  t.equal(rpc.retries, 0, "the loop's client leaves the waiting to fetch-retry.ts");
  t.equal(chainClients({ chainId: '1', endpoints: [{ url: 'http://a' }] }).rpc.maxBatchSize, undefined, 'none given: the client default');
});

t.test('an unreachable chain at start-up becomes CHAIN_UNREACHABLE; other errors pass through', async (t) => {
  const unreachable = new RpcUnreachableError('eth_chainId', 1, [{ endpoint: 'http://a', error: 'refused' }]);
  t.throws(() => chainUnreachable(unreachable), { code: 'CHAIN_UNREACHABLE', message: /^cannot reach the chain: / });
  const other = new IdxError('CHAIN_ID_MISMATCH', 'x');
  t.throws(() => chainUnreachable(other), other);
});

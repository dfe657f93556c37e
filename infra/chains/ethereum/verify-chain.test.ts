import t from 'tap';
import { anvilForTest } from '../../../test/support/anvil.ts';
import { deadPort, startLocalServer, startRpcProxy } from '../../../test/support/local-rpc-server.ts';
import { createRpcClient } from '../../rpc/create-rpc-client.ts';
import { verifyChain, verifyChainRetrying } from './verify-chain.ts';

const [one, two, other] = await Promise.all([anvilForTest(t, { chainId: 1337 }), anvilForTest(t, { chainId: 1337 }), anvilForTest(t, { chainId: 4242 })]);
const client = (...urls: string[]) => createRpcClient({ endpoints: urls.map((url) => ({ url })), retries: 0 });
const dead = `http://127.0.0.1:${await deadPort()}`;

t.test('every endpoint on the manifest chain: its identity', async (t) => {
  const id = await verifyChain(client(one.url, dead), { chainId: '1337' });
  t.equal(id.chainId, 1337);
  t.match(id.genesisHash, /^0x[0-9a-f]{64}$/);
  t.same(
    await verifyChain(client(one.url), { chainId: 1337, genesisHash: id.genesisHash.toUpperCase().replace('0X', '0x') }),
    id,
    'matches the stored genesis',
  );
});

t.test('an endpoint on another chain is named', async (t) => {
  await t.rejects(verifyChain(client(one.url, other.url), { chainId: '1337' }), {
    code: 'CHAIN_ID_MISMATCH',
    message: `${other.url} serves chain 4242, but the manifest's network.chainId is "1337": point the endpoint at chain 1337, or fix network.chainId`,
  });
});

t.test('a different genesis: between endpoints, or since the last run', async (t) => {
  // two anvils with one chain id share a genesis unless their genesis timestamps differ
  const [a, b] = await Promise.all([
    anvilForTest(t, { chainId: 7, args: ['--timestamp', '1000'] }),
    anvilForTest(t, { chainId: 7, args: ['--timestamp', '2000'] }),
  ]);
  await t.rejects(verifyChain(client(a.url, b.url), { chainId: 7 }), {
    code: 'CHAIN_GENESIS_MISMATCH',
    message: /the endpoints serve different chains with id 7/,
  });
  await t.rejects(verifyChain(client(two.url), { chainId: 1337, genesisHash: `0x${'00'.repeat(32)}` }), {
    code: 'CHAIN_GENESIS_MISMATCH',
    message: /indexed from a chain with genesis 0x0{64}/,
  });
});

t.test('no endpoint answering', async (t) => {
  await t.rejects(verifyChain(client(dead), { chainId: 1 }), { code: 'RPC_UNREACHABLE', message: new RegExp(`${dead}: connect ECONNREFUSED`) });
});

t.test('at start, a rate limit or an outage that passes is retried; a wrong chain is not', async (t) => {
  let refused = 0;
  // the first two requests are rate limited (HTTP 429), then the chain answers
  const flaky = await startLocalServer(t, async (body, index) => {
    if (index < 2) {
      refused++;
      return { status: 429, text: 'Too Many Requests' };
    }
    const res = await fetch(one.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    return { json: await res.json() };
  });
  const retries: string[] = [];
  const id = await verifyChainRetrying(
    client(flaky.url),
    { chainId: 1337 },
    { backoffMs: 10, onRetry: (err, attempt, waitMs) => retries.push(`${attempt} ${waitMs} ${err.message.split('\n')[0]}`) },
  );
  t.equal(id.chainId, 1337);
  t.equal(refused, 2);
  t.same(retries, ['1 10 no RPC endpoint answered eth_chainId (1 attempt):', '2 20 no RPC endpoint answered eth_chainId (1 attempt):']);

  // a JSON-RPC rate-limit error is retried too; after the attempts the last error is final
  const limited = await startRpcProxy(t, one.url, () => ({ error: { code: -32005, message: 'request rate exceeded' } }));
  let tries = 0;
  await t.rejects(verifyChainRetrying(client(limited.url), { chainId: 1337 }, { attempts: 3, backoffMs: 1, onRetry: () => tries++ }), {
    code: 'RPC_ERROR',
    message: /request rate exceeded/,
  });
  t.equal(tries, 2);

  tries = 0;
  await t.rejects(verifyChainRetrying(client(other.url), { chainId: 1337 }, { backoffMs: 1, onRetry: () => tries++ }), { code: 'CHAIN_ID_MISMATCH' });
  t.equal(tries, 0, 'a wrong chain is not retried');
});

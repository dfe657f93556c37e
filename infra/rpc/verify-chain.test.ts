import t from 'tap';
import { anvilForTest } from '../../test/support/anvil.ts';
import { deadPort } from '../../test/support/local-rpc-server.ts';
import { createRpcClient } from './create-rpc-client.ts';
import { verifyChain } from './verify-chain.ts';

const [one, two, other] = await Promise.all([anvilForTest(t, { chainId: 1337 }), anvilForTest(t, { chainId: 1337 }), anvilForTest(t, { chainId: 4242 })]);
const client = (...urls: string[]) => createRpcClient({ endpoints: urls.map((url) => ({ url })), retries: 0 });
const dead = `http://127.0.0.1:${await deadPort()}`;

t.test('every endpoint on the manifest chain: its identity', async (t) => {
  const id = await verifyChain(client(one.url, dead), { chainId: '1337' });
  t.equal(id.chainId, 1337);
  t.match(id.genesisHash, /^0x[0-9a-f]{64}$/);
  t.same(await verifyChain(client(one.url), { chainId: 1337, genesisHash: id.genesisHash.toUpperCase().replace('0X', '0x') }), id, 'matches the stored genesis');
});

t.test('an endpoint on another chain is named', async (t) => {
  await t.rejects(verifyChain(client(one.url, other.url), { chainId: '1337' }), {
    code: 'CHAIN_ID_MISMATCH',
    message: `${other.url} serves chain 4242, but the manifest's network.chainId is "1337": point the endpoint at chain 1337, or fix network.chainId`,
  });
});

t.test('a different genesis: between endpoints, or since the last run', async (t) => {
  // two anvils with one chain id share a genesis unless their genesis timestamps differ
  const [a, b] = await Promise.all([anvilForTest(t, { chainId: 7, args: ['--timestamp', '1000'] }), anvilForTest(t, { chainId: 7, args: ['--timestamp', '2000'] })]);
  await t.rejects(verifyChain(client(a.url, b.url), { chainId: 7 }), { code: 'CHAIN_GENESIS_MISMATCH', message: /the endpoints serve different chains with id 7/ });
  await t.rejects(verifyChain(client(two.url), { chainId: 1337, genesisHash: `0x${'00'.repeat(32)}` }), { code: 'CHAIN_GENESIS_MISMATCH', message: /indexed from a chain with genesis 0x0{64}/ });
});

t.test('no endpoint answering', async (t) => {
  await t.rejects(verifyChain(client(dead), { chainId: 1 }), { code: 'RPC_UNREACHABLE', message: new RegExp(`${dead}: connect ECONNREFUSED`) });
});

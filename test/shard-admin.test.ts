import { networkInterfaces } from 'node:os';
import t from 'tap';
import { makeErc20Workload } from '../devchain/make-erc20-workload.ts';
import { signJwt } from '../infra/rpc/jwt-auth.ts';
import { createRpcClient } from '../infra/rpc/create-rpc-client.ts';
import { anvilForTest } from './support/anvil.ts';
import { BACKENDS, PROGRAM_BACKEND } from './support/node-backends.ts';
import { call, post, shardPlace, startShard, waitForHeight } from './support/shard.ts';

const hex = (n: number) => `0x${n.toString(16)}`;
const anvil = await anvilForTest(t);
const client = createRpcClient({ endpoints: [{ url: anvil.url }] });
await makeErc20Workload(client, { blocks: 8, transfersPerBlock: 3, approvalsPerBlock: 1, senders: 2, recipients: 3 });
const upstreamHead = async () => Number(await client.request('eth_blockNumber'));
const H = await upstreamHead();
// the storage test of the rules: the last backend (PostgreSQL when DB_HOST is set)
const kind = BACKENDS[BACKENDS.length - 1]!;

const sameAsUpstream = async (url: string, height: number) => {
  const body = { jsonrpc: '2.0', id: 1, method: 'eth_getBlockByNumber', params: [hex(height), true] };
  return (await post(url, body)).text === (await post(anvil.url, body)).text;
};
const refusal = (message: RegExp) => ({ error: { code: -32000, message } });

t.test(`${kind}: admin_setEndHeight and admin_setStartHeight follow every head and tail rule`, async (t) => {
  const place = await shardPlace(t, kind);
  let shard = await startShard(t, anvil.url, place);
  await waitForHeight(shard.url, H);
  const info = async () => (await call(shard.url, 'idx_dataInfo')).result;
  t.same(await info(), { desiredChainDataStart: 0, desiredChainDataEnd: null });

  // head: below the synced height it truncates, at once
  t.equal((await shard.admin('admin_setEndHeight', [0])).result, true, '0 unsets the head');
  t.equal((await shard.admin('admin_setEndHeight', [null])).result, true, 'so does null');
  t.equal((await shard.admin('admin_setEndHeight', [hex(6)])).result, true, 'a hex quantity is a block number too');
  t.same(await info(), { desiredChainDataStart: 0, desiredChainDataEnd: 6 });
  t.equal((await call(shard.url, 'eth_blockNumber')).result, hex(6), 'latest is the new head as soon as the call returns');
  t.same((await call(shard.url, 'eth_getBlockByNumber', [hex(7), false])).error, {
    code: 4444,
    message: 'pruned history unavailable: requested 7, latest available 6',
  });
  await shard.pruned();
  t.same(
    [...(await shard.store.hashes(Array.from({ length: H + 1 }, (_, i) => i))).keys()].sort((a, b) => a - b),
    [0, 1, 2, 3, 4, 5, 6],
    'the blocks above the head are removed',
  );

  // tail: only forward, below the head, only synced blocks
  t.match(await shard.admin('admin_setStartHeight', [6]), refusal(/below the head 6/), 'the tail must stay below the head');
  t.match(await shard.admin('admin_setStartHeight', [0]), refusal(/only moves forward/), 'the tail only moves forward');
  t.equal((await shard.admin('admin_setStartHeight', [3])).result, true);
  t.same(await info(), { desiredChainDataStart: 3, desiredChainDataEnd: 6 });
  t.same((await call(shard.url, 'eth_getBlockByNumber', [hex(2), false])).error, {
    code: 4444,
    message: 'pruned history unavailable: requested 2, earliest available 3',
  });
  t.ok(await sameAsUpstream(shard.url, 0), 'genesis is still served');
  t.ok(await sameAsUpstream(shard.url, 3));
  t.match(await shard.admin('admin_setStartHeight', [2]), refusal(/only moves forward: it is 3/));
  await shard.pruned();
  t.equal(await shard.store.lowestBlock(), 3, 'the blocks below the tail are removed');
  t.ok(await shard.store.blockByNumber(0), 'genesis is never removed');

  // head: above the tail only
  t.match(await shard.admin('admin_setEndHeight', [3]), refusal(/greater than the tail: the tail is 3/), 'the head must be above the tail');
  t.match(await shard.admin('admin_setEndHeight', [1]), refusal(/greater than the tail/));
  t.same(await info(), { desiredChainDataStart: 3, desiredChainDataEnd: 6 }, 'a refused call changes nothing');

  // unset: syncs to the chain's latest block again
  t.equal((await shard.admin('admin_setEndHeight', [null])).result, true);
  await waitForHeight(shard.url, H);
  t.ok(await sameAsUpstream(shard.url, H), 'blocks above the old head are synced again');

  // above the chain: syncs until the chain gets there, and no further
  t.equal((await shard.admin('admin_setEndHeight', [H + 3])).result, true);
  await client.request('anvil_mine', ['0x2']);
  await waitForHeight(shard.url, H + 2);
  await client.request('anvil_mine', ['0x4']);
  await waitForHeight(shard.url, H + 3);
  await new Promise((r) => setTimeout(r, 300));
  t.equal((await call(shard.url, 'eth_blockNumber')).result, hex(H + 3), 'the shard stops at its head');
  t.match(await call(shard.url, 'eth_getBlockByNumber', [hex(H + 4), false]), { error: { code: 4444 } });

  // a tail the shard has not synced is refused
  t.equal((await shard.admin('admin_setEndHeight', [0])).result, true);
  t.match(await shard.admin('admin_setStartHeight', [hex(H + 500)]), refusal(/is not synced yet/), 'a future block cannot be the tail');
  t.equal((await shard.admin('admin_setStartHeight', [4])).result, true);
  t.equal((await shard.admin('admin_setEndHeight', [H + 6])).result, true);

  // the range survives a restart; flags given at startup override it
  await shard.stop();
  shard = await startShard(t, anvil.url, place);
  t.same(await info(), { desiredChainDataStart: 4, desiredChainDataEnd: H + 6 }, 'a restart keeps the range the admin calls set');
  await shard.stop();
  shard = await startShard(t, anvil.url, place, ['-shardstart=2', '-shardend=0']);
  t.same(await info(), { desiredChainDataStart: 2, desiredChainDataEnd: null }, 'startup flags override the stored range');
  await waitForHeight(shard.url, await upstreamHead());
  t.ok(await sameAsUpstream(shard.url, 2), 'a tail moved below the kept data is synced again');
  t.ok(await sameAsUpstream(shard.url, 3));
  await shard.stop();
  shard = await startShard(t, anvil.url, place);
  t.same(await info(), { desiredChainDataStart: 2, desiredChainDataEnd: null }, 'and they are kept for the next start');
});

t.test('the admin methods: refused on the public endpoint; on the loopback admin endpoint only with a fresh JWT of the secret', async (t) => {
  const shard = await startShard(t, anvil.url, await shardPlace(t, PROGRAM_BACKEND));
  await waitForHeight(shard.url, 1);
  const info = { desiredChainDataStart: 0, desiredChainDataEnd: null };
  for (const method of ['admin_setEndHeight', 'admin_setStartHeight']) {
    t.match(
      await call(shard.url, method, [1]),
      {
        error: {
          code: -32601,
          message: new RegExp(`${method} is not served on this endpoint: call it on idx-shard's admin endpoint \\(--admin-port.*--admin-secret-file`),
        },
      },
      `${method} on the public port`,
    );
  }
  t.same((await call(shard.url, 'idx_dataInfo')).result, info, 'idx_dataInfo stays public, and nothing changed');

  const body = { jsonrpc: '2.0', id: 1, method: 'admin_setEndHeight', params: [1] };
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  const refusals: [string, Record<string, string>, RegExp][] = [
    ['no token', {}, /missing token/],
    ['another secret', bearer(signJwt(Buffer.alloc(32, 1))), /signature does not match/],
    ['a token of two minutes ago', bearer(signJwt(shard.adminSecret, Math.floor(Date.now() / 1000) - 120)), /stale token/],
    ['the secret itself as a bearer token', bearer(shard.adminSecret.toString('hex')), /not a JWT/],
  ];
  for (const [what, headers, message] of refusals) {
    const answer = await post(shard.adminUrl, body, headers);
    t.equal(answer.status, 401, what);
    t.match(answer.json, { error: { code: -32001, message } }, what);
  }
  t.same((await call(shard.url, 'idx_dataInfo')).result, info, 'no refused call changed the range');

  t.equal((await shard.admin('admin_setEndHeight', [H + 10])).result, true, 'with a fresh token of the secret');
  t.same((await shard.admin('idx_dataInfo')).result, { desiredChainDataStart: 0, desiredChainDataEnd: H + 10 });
  t.match(await shard.admin('eth_blockNumber'), { error: { code: -32601 } }, 'the admin endpoint serves no data methods');

  const lan = Object.values(networkInterfaces())
    .flat()
    .find((a) => a !== undefined && !a.internal && a.family === 'IPv4');
  if (lan !== undefined) {
    const port = new URL(shard.adminUrl).port;
    await t.rejects(fetch(`http://${lan.address}:${port}`, { method: 'POST', body: '{}' }), `the admin endpoint does not answer on ${lan.address}`);
    t.match(
      await call(`http://${lan.address}:${new URL(shard.url).port}`, 'eth_chainId'),
      { result: /^0x/ },
      'the public one does (every interface by default)',
    );
  }
});

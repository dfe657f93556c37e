import t from 'tap';
import { createShardStore, type ShardBlock } from './shard-store.ts';
import { createTestBackends } from '../../test/support/test-backends.ts';

const backends = createTestBackends(t);

const h = (n: number, salt = 'a') => `0x${salt}${n.toString(16).padStart(63, '0')}`;
const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}`;
const topic = (n: number) => `0x${n.toString(16).padStart(64, '0')}`;

/** block n: n % 3 transactions, each with one log from address (n % 2) with topics [t(n%2), t(tx)] */
function block(n: number, salt = 'a'): ShardBlock {
  const transactions = Array.from({ length: n % 3 }, (_, i) => ({
    hash: h(n * 10 + i, `${salt}f`),
    tx: `{"tx":${n * 10 + i}}`,
    receipt: `{"receipt":${n * 10 + i}}`,
  }));
  return {
    number: n,
    hash: h(n, salt),
    parentHash: n === 0 ? h(0, '0') : h(n - 1, salt),
    body: `{"number":"0x${n.toString(16)}","salt":"${salt}","transactions":[${transactions.map((x) => `"${x.hash}"`).join(',')}]}`,
    transactions,
    logs: transactions.map((_, i) => ({ address: addr(n % 2), topics: [topic(n % 2), topic(i)], log: `{"log":"${n}.${i}"}` })),
  };
}

await backends.each(t, async (t, { db, schema }) => {
  const store = createShardStore({ db: db.kysely, schema });
  await store.migrate();
  await store.migrate();
  t.same(await store.getState(), {}, 'migrating twice is harmless');

  await store.writeBlocks(
    Array.from({ length: 21 }, (_, n) => block(n)),
    { synced: 20, tail: 0 },
  );
  t.same(await store.getState(), { synced: 20, tail: 0 }, 'state is written with the blocks');
  const all = { from: 0, to: 20 };

  const b5 = await store.blockByNumber(5);
  t.same(b5, { number: 5, hash: h(5), txCount: 2, body: block(5).body });
  t.same(await store.blockByHash(h(5).toUpperCase().replace('0X', '0x'), all), b5, 'hash lookups ignore case');
  t.equal(await store.blockByHash(h(5), { from: 6, to: 20 }), undefined, 'outside the served range: unknown');
  t.same(await store.blockByHash(h(0), { from: 6, to: 20 }), await store.blockByNumber(0), 'genesis is always served');
  t.same(await store.transactions(5), ['{"tx":50}', '{"tx":51}']);
  t.same(await store.receipts(5), ['{"receipt":50}', '{"receipt":51}']);
  t.equal(await store.transactionAt(5, 1), '{"tx":51}');
  t.equal(await store.transactionAt(5, 2), undefined);
  t.equal(await store.transactionByHash(h(51, 'af'), all), '{"tx":51}');
  t.equal(await store.receiptByHash(h(51, 'af'), all), '{"receipt":51}');
  t.equal(await store.transactionByHash(h(51, 'af'), { from: 6, to: 20 }), undefined);
  t.same(
    await store.hashes([3, 4, 99]),
    new Map([
      [3, h(3)],
      [4, h(4)],
    ]),
  );

  const logs = async (q: Partial<Parameters<typeof store.logs>[0]>) =>
    (await store.logs({ fromBlock: 0, toBlock: 20, topics: [], limit: 1000, ...q })).map((l) => l.log);
  t.equal((await logs({})).length, 21, 'every log (block n holds n % 3)');
  t.same(await logs({ fromBlock: 4, toBlock: 5 }), ['{"log":"4.0"}', '{"log":"5.0"}', '{"log":"5.1"}'], 'in chain order');
  t.same(await logs({ fromBlock: 4, toBlock: 5, addresses: [addr(1)] }), ['{"log":"5.0"}', '{"log":"5.1"}']);
  t.same(await logs({ fromBlock: 4, toBlock: 5, topics: [null, [topic(1)]] }), ['{"log":"5.1"}'], 'null is any topic');
  t.same(
    await logs({ fromBlock: 4, toBlock: 5, topics: [[topic(0), topic(1)], [topic(0)]] }),
    ['{"log":"4.0"}', '{"log":"5.0"}'],
    'alternatives within a position',
  );
  t.same(await logs({ fromBlock: 4, toBlock: 5, topics: [null, null, [topic(0)]] }), [], 'a position the log lacks never matches');
  t.same(await logs({ limit: 2 }), ['{"log":"1.0"}', '{"log":"2.0"}'], 'limit');

  // a reorg above 15: the new blocks replace the old ones
  await store.rewind(15, { synced: 15 });
  t.equal(await store.blockByNumber(16), undefined);
  await store.writeBlocks(
    [16, 17].map((n) => block(n, 'b')),
    { synced: 17 },
  );
  t.equal((await store.blockByNumber(16))?.hash, h(16, 'b'));
  t.equal(await store.transactionByHash(h(170, 'af'), all), undefined, 'the orphaned transactions are gone');
  t.equal(await store.transactionByHash(h(170, 'bf'), all), '{"tx":170}');
  await store.writeBlocks([block(17, 'c')], { synced: 17 });
  t.equal((await store.blockByNumber(17))?.hash, h(17, 'c'), 'writing a height again replaces it');
  t.equal((await logs({ fromBlock: 17, toBlock: 17 })).length, 2);

  t.equal(await store.lowestBlock(), 1);
  t.equal(await store.pruneBelow(10, 4), 4, 'pruning goes in chunks');
  t.equal(await store.lowestBlock(), 5);
  t.equal(await store.pruneBelow(10, 100), 5);
  t.equal(await store.pruneBelow(10, 100), 0, 'nothing left below the tail');
  t.ok(await store.blockByNumber(0), 'genesis is kept');
  t.equal(await store.transactionAt(5, 0), undefined, 'transactions go with their blocks');
  t.same(await logs({ fromBlock: 0, toBlock: 9 }), []);
  t.equal(await store.pruneAbove(15, 1), 1);
  t.equal(await store.pruneAbove(15, 100), 1);
  t.equal((await store.hashes([15, 16, 17])).size, 1, 'only 15 remains above the head 15');
  t.same(await logs({ fromBlock: 16, toBlock: 20 }), []);
});

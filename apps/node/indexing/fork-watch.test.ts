import t from 'tap';
import { blockHandlerSource, createFakeChain, createMemoryStore, fakeIndexer, until } from '../../../test/support/fake-chain.ts';
import { createForkWatch } from './fork-watch.ts';

const recordBlock = {
  record: ({ height, hash, cache }: { height: number; hash: string; cache: import('../../../domain/entities/store-cache.ts').StoreCache }) =>
    cache.set('Block', String(height), { id: String(height), hash }, height),
};

t.test('following the head, a reorganisation is rewound to the common ancestor and the new branch indexed', async (t) => {
  const chain = createFakeChain(10);
  chain.setFinalized(3);
  const memory = createMemoryStore();
  const { indexer } = fakeIndexer(chain, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { unfinalizedBlocks: true, stopAtHeight: 14 },
  });
  const running = indexer.run(new AbortController().signal);
  await until(() => memory.metadata.lastProcessedHeight === 10);
  t.equal(memory.live('Block').get('9')?.hash, '0xa9');

  // blocks 8.. change; the chain grows to 14 on the new branch
  chain.reorg(8, 'b', 14);
  await running;
  const live = memory.live('Block');
  t.same(
    [...live.values()].map((b) => b.hash),
    ['0xa1', '0xa2', '0xa3', '0xa4', '0xa5', '0xa6', '0xa7', '0xb8', '0xb9', '0xb10', '0xb11', '0xb12', '0xb13', '0xb14'],
    'blocks 8 to 10 of the old branch are gone, the new branch is indexed',
  );
  const kept = memory.metadata.unfinalizedBlocks as unknown[];
  t.ok(JSON.stringify(kept).includes('0xb14') && !JSON.stringify(kept).includes('0xa9'), 'the kept identities are the new branch');
});

t.test('a reorganisation while the node was stopped is found at start', async (t) => {
  const chain = createFakeChain(10);
  chain.setFinalized(2);
  const memory = createMemoryStore();
  await fakeIndexer(chain, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { unfinalizedBlocks: true, stopAtHeight: 10 },
  }).indexer.run(new AbortController().signal);
  chain.reorg(6, 'c', 10);
  await fakeIndexer(chain, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { unfinalizedBlocks: true, stopAtHeight: 10 },
  }).indexer.run(new AbortController().signal);
  t.same([...memory.live('Block').values()].map((b) => b.hash).slice(4), ['0xa5', '0xc6', '0xc7', '0xc8', '0xc9', '0xc10']);
});

t.test('a fork below the kept blocks is an error naming what to do', async (t) => {
  const chain = createFakeChain(10);
  chain.setFinalized(7);
  const memory = createMemoryStore();
  await fakeIndexer(chain, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { unfinalizedBlocks: true, stopAtHeight: 10 },
  }).indexer.run(new AbortController().signal);
  chain.reorg(3, 'd', 10);
  const rerun = fakeIndexer(chain, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { unfinalizedBlocks: true, stopAtHeight: 10 },
  });
  await t.rejects(rerun.indexer.run(new AbortController().signal), { code: 'FORK_BEYOND_UNFINALIZED', message: /reindex --targetHeight/ });
});

t.test('fork watch on its own: continuity, keeping, pruning at finality', async (t) => {
  const chain = createFakeChain(6);
  const watch = createForkWatch(chain.source, { unfinalizedBlocks: true });
  t.equal(watch.watching(), true);
  const [b4, b5, b6] = await chain.source.getBlockRefs([4, 5, 6]);
  watch.keep(b4);
  watch.keep(b5);
  t.equal(watch.continues(b6), true, 'the next block continues');
  t.equal(watch.continues({ ...b6!, parentHash: '0xother' }), false, 'a block on another branch does not');
  t.throws(() => watch.keep({ ...b6!, parentHash: '0xother' }), { code: 'UNFINALIZED_BLOCKS_INCONSISTENT' });
  t.same(Object.keys(watch.metadata(4, 5)), ['unfinalizedBlocks', 'lastFinalizedVerifiedHeight'], 'changes go into the next flush');
  t.same(watch.metadata(4, 5), {}, 'and only once');
  t.equal(await watch.findFork(), undefined, 'the chain still has the kept blocks');
  chain.reorg(5, 'x', 6);
  t.equal(await watch.findFork(), 4, 'after a reorganisation from 5, the ancestor is 4');
  const off = createForkWatch(chain.source, { unfinalizedBlocks: false });
  t.equal(off.watching(), false, 'without the flag and nothing kept, forks are not watched');
  off.load([{ blockHeight: 5, blockHash: '0xa5', parentHash: '0xa4' }]);
  t.equal(off.watching(), true, 'blocks kept by an earlier run are watched until final');
});

t.test('following the head, the height just polled serves the fork check (no second eth_blockNumber)', async (t) => {
  const chain = createFakeChain(6);
  let asked = 0;
  const source = { ...chain.source, bestHeight: () => (asked++, chain.source.bestHeight()) };
  const watch = createForkWatch(source, { unfinalizedBlocks: true });
  for (const ref of await chain.source.getBlockRefs([4, 5])) watch.keep(ref);
  t.equal(await watch.findFork(6), undefined);
  chain.reorg(5, 'x', 6);
  t.equal(await watch.findFork(6), 4, 'the fork is found all the same');
  t.equal(asked, 0, 'the head height was not asked for');
  t.equal(await watch.findFork(), 4, 'without one, it is asked');
  t.equal(asked, 1);
});

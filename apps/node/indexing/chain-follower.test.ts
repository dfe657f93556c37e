import t from 'tap';
import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import { blockHandlerSource, createFakeChain, createMemoryStore, fakeIndexer } from '../../../test/support/fake-chain.ts';

const recordBlock = {
  record: ({ height, hash, cache }: { height: number; hash: string; cache: StoreCache }) =>
    cache.set('Block', String(height), { id: String(height), hash }, height),
};

/**
 * The chain's fetcher, but its first `lies` answers for a range starting at `from` give the blocks
 * from `from + 2` on as another branch has them (`0xx<h>`, each the parent of the next): the
 * hashes by height of two branches in one answer, as an endpoint that reorganised mid-fetch, or a
 * pool of endpoints that disagree, gives them.
 */
function mixingFetcher(chain: ReturnType<typeof createFakeChain>, from: number, lies: number) {
  let told = 0;
  const fetches: number[] = [];
  const fetcher: typeof chain.fetcher = {
    ...chain.fetcher,
    async fetch(plan, range) {
      const honest = await chain.fetcher.fetch(plan, range);
      fetches.push(range.from);
      if (range.from !== from || told++ >= lies) return honest;
      const blocks = new Map(honest.blocks);
      for (const h of honest.blocks.keys())
        if (h >= from + 2) blocks.set(h, { height: h, hash: `0xx${h}`, parentHash: `0xx${h - 1}`, timestamp: 0, transactionHashes: [] } as never);
      return { ...honest, blocks };
    },
  };
  return { fetcher, fetches };
}

for (const unfinalizedBlocks of [false, true]) {
  t.test(
    `${unfinalizedBlocks ? '--unfinalized-blocks, final blocks' : 'final blocks'}: a range answered from two branches is fetched again, never indexed`,
    async (t) => {
      const chain = createFakeChain(12);
      const { fetcher, fetches } = mixingFetcher(chain, 5, 1);
      const memory = createMemoryStore();
      await fakeIndexer({ ...chain, fetcher }, memory, {
        dataSources: [blockHandlerSource('record')],
        handlers: recordBlock,
        settings: { unfinalizedBlocks, stopAtHeight: 12, fetchRetry: { baseMs: 1 } },
      }).indexer.run(new AbortController().signal);
      t.same(
        [...memory.live('Block').values()].map((b) => b.hash),
        Array.from({ length: 12 }, (_, i) => chain.hashAt(i + 1)),
        "every block indexed is the chain's, none of the other branch",
      );
      t.equal(fetches.filter((f) => f === 5).length, 2, 'the mixed answer was fetched again');
    },
  );
}

t.test('an endpoint that keeps answering from two branches stops the node naming the blocks; nothing of the range is committed', async (t) => {
  const chain = createFakeChain(12);
  const { fetcher } = mixingFetcher(chain, 5, Infinity);
  const memory = createMemoryStore();
  await t.rejects(
    fakeIndexer({ ...chain, fetcher }, memory, {
      dataSources: [blockHandlerSource('record')],
      handlers: recordBlock,
      settings: { stopAtHeight: 12, fetchRetry: { baseMs: 1, attempts: 3 } },
    }).indexer.run(new AbortController().signal),
    { code: 'CHAIN_CHANGED_DURING_FETCH', message: /blocks of \[5,8\] are not one chain: block 7's parent is 0xx6, but block 6 came as 0xa6/ },
  );
  t.equal(memory.metadata.lastProcessedHeight, 4, 'committed up to the range before');
  t.notOk(
    [...memory.live('Block').values()].some((b) => String(b.hash).startsWith('0xx')),
    'no block of the other branch',
  );
});

t.test('a fetch slower than processing is fetched further ahead, up to two ranges more; every block indexed once, in order', async (t) => {
  const chain = createFakeChain(60);
  let inFlight = 0;
  let most = 0;
  const asked: number[] = [];
  const fetcher: typeof chain.fetcher = {
    ...chain.fetcher,
    async fetch(plan, range) {
      asked.push(range.from);
      most = Math.max(most, ++inFlight);
      try {
        // a remote endpoint: each range takes a while, many can be asked at once
        await new Promise((resolve) => setTimeout(resolve, 15));
        return await chain.fetcher.fetch(plan, range);
      } finally {
        inFlight--;
      }
    },
  };
  const memory = createMemoryStore();
  await fakeIndexer({ ...chain, fetcher }, memory, {
    dataSources: [blockHandlerSource('record')],
    handlers: recordBlock,
    settings: { batchSize: 2, stopAtHeight: 60 },
  }).indexer.run(new AbortController().signal);
  t.equal(most, 5, 'from the range processed and two ahead (one worker plus one) to the range processed and four ahead');
  t.same(
    asked,
    Array.from({ length: 30 }, (_, i) => 1 + 2 * i),
    'each range asked for once, in order',
  );
  t.same(
    [...memory.live('Block').values()].map((b) => b.hash),
    Array.from({ length: 60 }, (_, i) => chain.hashAt(i + 1)),
  );
});

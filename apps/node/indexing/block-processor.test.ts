import t from 'tap';
import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import { bypassedHeights } from '../../../domain/project/bypass-blocks.ts';
import { blockHandlerSource, blockHandlerTemplate, createFakeChain, createMemoryStore, fakeIndexer } from '../../../test/support/fake-chain.ts';

type Ctx = { height: number; hash: string; cache: StoreCache };

/** `root` creates a `Child` data source at block 4; the child counts the blocks it sees. */
const handlers = {
  root: ({ height }: Ctx) => (height === 4 ? [{ template: 'Child', args: {} }] : []),
  child: ({ height, cache }: Ctx) => cache.set('Seen', String(height), { id: String(height) }, height),
};
const setup = { dataSources: [blockHandlerSource('root')], templates: [blockHandlerTemplate('Child', 'child')], handlers };

t.test('a data source created in a block runs from that very block on, and is committed with the blocks', async (t) => {
  const chain = createFakeChain(12);
  const memory = createMemoryStore();
  await fakeIndexer(chain, memory, { ...setup, settings: { stopAtHeight: 12 } }).indexer.run(new AbortController().signal);
  t.same([...memory.live('Seen').keys()], ['4', '5', '6', '7', '8', '9', '10', '11', '12'], 'blocks 4 to 12, none before');
  t.same(memory.metadata.dynamicDatasources, [{ templateName: 'Child', startBlock: 4, args: {} }]);
});

t.test('after a restart the created data source is loaded from the database and goes on', async (t) => {
  const chain = createFakeChain(8);
  const memory = createMemoryStore();
  await fakeIndexer(chain, memory, { ...setup, settings: { stopAtHeight: 6 } }).indexer.run(new AbortController().signal);
  chain.grow(9);
  await fakeIndexer(chain, memory, { ...setup, settings: { stopAtHeight: 9 } }).indexer.run(new AbortController().signal);
  t.same([...memory.live('Seen').keys()], ['4', '5', '6', '7', '8', '9']);
  t.equal((memory.metadata.dynamicDatasources as unknown[]).length, 1, 'created once, not again');
});

t.test('a rewind below the creating block drops the data source with the blocks', async (t) => {
  const chain = createFakeChain(10);
  chain.setFinalized(2);
  const memory = createMemoryStore();
  await fakeIndexer(chain, memory, { ...setup, settings: { unfinalizedBlocks: true, stopAtHeight: 10 } }).indexer.run(new AbortController().signal);
  // the new branch from 3 has no creating call: root creates only at block 4 of branch a
  chain.reorg(3, 'b', 10);
  const noCreate = { ...handlers, root: () => [] };
  await fakeIndexer(chain, memory, { ...setup, handlers: noCreate, settings: { unfinalizedBlocks: true, stopAtHeight: 10 } }).indexer.run(
    new AbortController().signal,
  );
  t.same([...memory.live('Seen').keys()], [], 'the child ran on no block of the new branch');
  t.same(memory.metadata.dynamicDatasources, [], 'and is no longer a data source');
});

t.test('network.bypassBlocks: the listed blocks run no handler, the node goes on past them', async (t) => {
  const chain = createFakeChain(12);
  const memory = createMemoryStore();
  const seeAll = { ...handlers, root: ({ height, cache }: Ctx) => void cache.set('Seen', String(height), { id: String(height) }, height) };
  const bypassed = bypassedHeights([3, '6-8'])!;
  await fakeIndexer(chain, memory, { ...setup, handlers: seeAll, bypassed, settings: { stopAtHeight: 12 } }).indexer.run(new AbortController().signal);
  t.same(
    [...memory.live('Seen').keys()].map(Number).sort((a, b) => a - b),
    [1, 2, 4, 5, 9, 10, 11, 12].filter((h) => h >= 1),
  );
  t.equal(memory.metadata.lastProcessedHeight, 12, 'indexed to the end');
});

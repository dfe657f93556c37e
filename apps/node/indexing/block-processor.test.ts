import t from 'tap';
import type { ChainFamily, FetchedBlocks } from '../../../domain/chains/chain-family.ts';
import type { StoreCache } from '../../../domain/entities/store-cache.ts';
import { bypassedHeights } from '../../../domain/project/bypass-blocks.ts';
import { createLogger } from '../../../infra/logging/create-logger.ts';
import { blockHandlerSource, blockHandlerTemplate, createFakeChain, createMemoryStore, fakeIndexer } from '../../../test/support/fake-chain.ts';
import { callsAfter, createBlockProcessor, type BlockRunner } from './block-processor.ts';
import { createIndexerStatus } from './indexer-status.ts';

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

/**
 * A family of blocks of numbered items (`item` transactions or logs, in order): each data source's one handler is
 * called on every item from its start block on, in SubQuery's order (item, then data source).
 */
function itemsFamily(items: number): ChainFamily<{ handler: string; startBlock: number; index: number }, null, FetchedBlocks, null, ItemCall> {
  return {
    name: 'ethereum',
    specName: 'items',
    compile: (ds, index) => ({ handler: ds.mapping.handlers[0]!.handler, startBlock: ds.startBlock, index }),
    plan: () => null,
    blockCalls(sources, fetched, height) {
      if (!fetched.blocks.has(height)) return undefined;
      const active = sources.filter((s) => s.startBlock <= height);
      const matched = Array.from({ length: items }, (_v, item) => active.map((s) => ({ call: { handler: s.handler, item }, order: [item, s.index] }))).flat();
      return { content: null, calls: matched.map((m) => m.call), order: matched.map((m) => m.order) };
    },
  };
}
type ItemCall = { handler: string; item: number };

for (const wholeBlocks of [false, true] as const)
  t.test(
    `a data source created by a call runs on the calls after it in its block, in their order, and on none before${wholeBlocks ? ' (blocks fetched whole: the block is not fetched again)' : ''}`,
    async (t) => {
      // as SubQuery's node, which appends the new data source to those it is iterating: the creating item's later data
      // sources, then the new one, then every later item with all of them
      const ran: string[] = [];
      let fetches = 0;
      const blocks = new Map([5, 6].map((h) => [h, { height: h, hash: `0x${h}`, parentHash: `0x${h - 1}`, timestamp: h }]));
      const fetched: FetchedBlocks = { blocks, logCount: 0 };
      const runner: BlockRunner<null, ItemCall> = {
        async runBlock(height, _content, calls) {
          for (const [i, call] of calls.entries()) {
            ran.push(`${height}:${call.handler}@${call.item}`);
            // the sandbox stops the block after the call that created a data source (isolate/run-block.ts)
            if (height === 5 && call.handler === 'root' && call.item === 1) return { created: [{ template: 'Child', args: {} }], ran: i + 1 };
          }
          return { created: [] };
        },
      };
      const processor = createBlockProcessor({
        family: { ...itemsFamily(3), ...(wholeBlocks && { wholeBlocks }) },
        dataSources: [blockHandlerSource('root'), blockHandlerSource('other')],
        templates: [blockHandlerTemplate('Child', 'child')],
        runner,
        fetch: async () => {
          fetches++;
          return fetched;
        },
        status: createIndexerStatus(),
        logger: createLogger({ level: 'silent', format: 'json' }),
      });
      processor.load([]);
      t.equal(await processor.process(fetched, 5), true, 'the block created a data source');
      t.equal(await processor.process(fetched, 6), false);
      t.same(ran, [
        '5:root@0',
        '5:other@0',
        '5:root@1',
        '5:other@1',
        '5:child@1',
        '5:root@2',
        '5:other@2',
        '5:child@2',
        '6:root@0',
        '6:other@0',
        '6:child@0',
        '6:root@1',
        '6:other@1',
        '6:child@1',
        '6:root@2',
        '6:other@2',
        '6:child@2',
      ]);
      t.same(processor.metadata(), { dynamicDatasources: [{ templateName: 'Child', startBlock: 5, args: {} }] });
      t.equal(
        fetches,
        wholeBlocks ? 0 : 1,
        wholeBlocks ? 'the block already held what the new data source matches' : 'the block fetched again for the new data source',
      );
    },
  );

t.test('callsAfter: the calls after a place, in order, with their places', async (t) => {
  const block = {
    calls: ['a', 'b', 'c', 'd'],
    order: [
      [0, 0],
      [1, 0],
      [1, 1],
      [2, 0],
    ],
  };
  t.same(callsAfter(block, [1, 0]), {
    calls: ['c', 'd'],
    order: [
      [1, 1],
      [2, 0],
    ],
  });
  t.same(callsAfter(block, [2, 0]), { calls: [], order: [] });
  t.same(
    callsAfter(block, [0, 5]),
    {
      calls: ['b', 'c', 'd'],
      order: [
        [1, 0],
        [1, 1],
        [2, 0],
      ],
    },
    'a place between two calls',
  );
});

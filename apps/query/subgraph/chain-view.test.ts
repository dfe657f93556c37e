import t from 'tap';
import type { QueryContext } from '../query-context.ts';
import { createChainView } from './chain-view.ts';

/** A context whose statements answer from `tables` (name → rows of `_metadata`, or of `_poi` as [id, hex hash]). */
function fakeContext(tables: Record<string, Record<string, unknown> | [number, string][]>) {
  const statements: string[] = [];
  const ctx = {
    schema: 'app',
    async sql(text: string, params: readonly unknown[]) {
      statements.push(text);
      if (text.includes('pg_class')) return Object.keys(tables).map((name) => ({ name }));
      const table = /from "app"\."([^"]+)"/.exec(text)![1]!;
      const rows = tables[table]!;
      if (!Array.isArray(rows)) return Object.entries(rows).map(([key, value]) => ({ key, value }));
      if (text.includes('chain_block_hash = decode')) return rows.filter(([, h]) => h === params[0]).map(([id]) => ({ id: String(id) }));
      return rows.filter(([id]) => String(id) === params[0]).map(([, h]) => ({ hash: `0x${h}` }));
    },
  } as unknown as QueryContext;
  return { ctx, statements };
}

const unfinalized = [
  { blockHeight: 11, blockHash: '0xB11', parentHash: '0xb10', timestamp: 1100 },
  { blockHeight: 12, blockHash: '0xb12', parentHash: '0xb11', timestamp: 1200 },
];

t.test('the head and block hashes, from the tables the node writes', async (t) => {
  const { ctx, statements } = fakeContext({
    _metadata: { lastProcessedHeight: 12, lastProcessedBlockTimestamp: 1200, unfinalizedBlocks: unfinalized },
    _poi: [
      [5, 'a5'],
      [9, 'a9'],
    ],
  });
  const chain = createChainView(ctx, 'app');
  t.equal(await chain.head(), 12);
  t.equal(await chain.numberOf('0xb11'), 11, 'an unfinalized block, whatever the case of its stored hash');
  t.equal(await chain.numberOf('0xa9'), 9, 'a block with a _poi row');
  t.equal(await chain.numberOf('0xcc'), undefined);
  t.same(await chain.block(12), { number: 12, hash: '0xb12', parentHash: '0xb11', timestamp: 1200 });
  t.same(await chain.block(5), { number: 5, hash: '0xa5', parentHash: null, timestamp: null }, 'a past block: its hash from _poi');
  t.same(await chain.block(7), { number: 7, hash: null, parentHash: null, timestamp: null }, 'a block idx kept nothing of');
  t.equal(statements.filter((s) => s.includes('pg_class') || s.includes('_metadata"')).length, 2, 'the metadata is read once per request');
});

t.test('--multi-chain: the first chain by table name, and its own _poi', async (t) => {
  const { ctx } = fakeContext({
    _metadata: { schema: {} },
    _metadata_1: { lastProcessedHeight: 30 },
    _metadata_2: { lastProcessedHeight: 99 },
    _poi_1: [[30, 'c30']],
    _poi_2: [[30, 'd30']],
  });
  const chain = createChainView(ctx, 'app');
  t.equal(await chain.head(), 30);
  t.equal((await chain.block(30)).hash, '0xc30');
});

t.test('nothing indexed yet', async (t) => {
  const { ctx } = fakeContext({ _metadata: { schema: {} } });
  await t.rejects(createChainView(ctx, 'app').head(), { message: /subgraph app has not indexed a block yet/, extensions: { code: 'PROJECT_NOT_INDEXED' } });
});

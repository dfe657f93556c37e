import t from 'tap';
import type { BlockRef } from './chain-heads.ts';
import { finalizedHeight } from './finality.ts';
import { nextRange, workerFor } from './next-range.ts';
import {
  appendBlock,
  brokenLink,
  finalizedMismatch,
  findForkPoint,
  fromStoredUnfinalized,
  pruneFinalized,
  rewindBlocks,
  toStoredUnfinalized,
  type UnfinalizedBlocks,
} from './unfinalized-blocks.ts';

const ref = (height: number, branch = 'a'): BlockRef => ({
  height,
  hash: `0x${branch}${height}`,
  parentHash: `0x${height <= 1 || branch === 'a' ? 'a' : branch}${height - 1}`,
  timestamp: height * 12,
});

t.test('ranges go to workers in turn; the next range stops at the target', async (t) => {
  t.same(
    [0, 1, 2, 3, 4].map((i) => workerFor(i, 2)),
    [0, 1, 0, 1, 0],
  );
  t.equal(workerFor(7, 0), 0);
  t.same(nextRange(10, 15, 100), { from: 10, to: 15 });
  t.equal(nextRange(16, 15, 100), undefined);
});

t.test('finality: the finalized tag when the chain has one, else confirmations behind best', async (t) => {
  t.equal(finalizedHeight(1000, 990, 200), 990);
  t.equal(finalizedHeight(1000, undefined, 200), 800);
  t.equal(finalizedHeight(50, undefined, 200), 0);
  t.equal(finalizedHeight(1000, 1200, 200), 1000, 'never ahead of the best block');
});

t.test('a parent-hash mismatch is a fork; the ancestor is the newest block the chain still has', async (t) => {
  let blocks: UnfinalizedBlocks = [];
  for (let h = 1; h <= 10; h++) {
    const r = appendBlock(blocks, ref(h));
    if (!r.ok) throw new Error(r.reason);
    blocks = r.blocks;
  }
  // The chain reorganised from height 7: block 8 of branch b has parent b7.
  const forked = appendBlock(blocks, { ...ref(11, 'b'), parentHash: '0xb10' });
  t.equal(forked.ok, false);
  t.match(!forked.ok && forked.reason, /block 11 has parent 0xb10, but block 10 was indexed as 0xa10/);

  const chain = (h: number) => (h < 7 ? `0xa${h}` : `0xb${h}`);
  t.same(findForkPoint(blocks, chain), { kind: 'ancestor', height: 6 });
  t.same(
    findForkPoint(blocks, () => '0xzz'),
    { kind: 'beyond-window', oldest: 1 },
  );
  t.same(
    rewindBlocks(blocks, 6).map((b) => b.height),
    [1, 2, 3, 4, 5, 6],
  );

  t.equal(appendBlock(blocks, ref(10)).ok, false, 'a height already indexed is refused');
});

t.test('pruning keeps the newest final block as the anchor', async (t) => {
  const blocks = [1, 2, 3, 4, 5].map((h) => ref(h));
  t.same(
    pruneFinalized(blocks, 3).map((b) => b.height),
    [3, 4, 5],
  );
  t.same(
    pruneFinalized(blocks, 0).map((b) => b.height),
    [1, 2, 3, 4, 5],
  );
  t.same(
    pruneFinalized(blocks, 9).map((b) => b.height),
    [5],
  );
  t.same(pruneFinalized([], 9), []);
});

t.test('a stored block the chain replaced below finality is found', async (t) => {
  const blocks = [3, 4, 5].map((h) => ref(h));
  t.equal(
    finalizedMismatch(blocks, 4, (h) => `0xa${h}`),
    undefined,
  );
  t.equal(finalizedMismatch(blocks, 4, (h) => (h === 4 ? '0xc4' : `0xa${h}`))?.height, 4);
  t.equal(
    finalizedMismatch(blocks, 4, (h) => (h === 5 ? '0xc5' : `0xa${h}`)),
    undefined,
    'above finality is not checked here',
  );
});

t.test("unfinalized blocks are kept in SubQuery's shape and read back in height order", async (t) => {
  const blocks = [3, 4].map((h) => ref(h));
  const stored = toStoredUnfinalized(blocks);
  t.same(stored[0], { blockHeight: 3, blockHash: '0xa3', parentHash: '0xa2', timestamp: 36 });
  t.same(fromStoredUnfinalized([...stored].reverse()), blocks);
  t.same(fromStoredUnfinalized(undefined), []);
  t.same(fromStoredUnfinalized('[1]'), [], 'another shape reads as none kept');
});

t.test('refs of one range must chain', async (t) => {
  t.equal(brokenLink([1, 2, 3].map((h) => ref(h))), undefined);
  t.equal(brokenLink([ref(1), ref(3)]), undefined, 'a gap is not a broken link');
  t.equal(brokenLink([ref(1), ref(2), { ...ref(3), parentHash: '0xb2' }])?.height, 3);
});

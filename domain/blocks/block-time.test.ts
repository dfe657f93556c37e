import t from 'tap';
import { averageBlockTime, createBlockTimeWindow } from './block-time.ts';

t.test('the average of two blocks apart, in whole milliseconds', async (t) => {
  t.equal(averageBlockTime({ height: 100, timestamp: 1_000 }, { height: 110, timestamp: 1_120 }), 12_000, 'Ethereum: 12 s');
  t.equal(averageBlockTime({ height: 0, timestamp: 0 }, { height: 3, timestamp: 1 }), 333, 'rounded to an integer');
  t.equal(averageBlockTime({ height: 0, timestamp: 0 }, { height: 4, timestamp: 1 }), 250, 'blocks sharing a second average out (2 s blocks of an L2: 0.25 s)');
  t.equal(averageBlockTime({ height: 5, timestamp: 9 }, { height: 6, timestamp: 9 }), 0, 'one timestamp for both');
  t.equal(averageBlockTime({ height: 5, timestamp: 9 }, { height: 5, timestamp: 9 }), undefined, 'no distance, no average');
  t.equal(averageBlockTime({ height: 6, timestamp: 9 }, { height: 5, timestamp: 8 }), undefined);
  t.equal(averageBlockTime({ height: 1, timestamp: 10 }, { height: 2, timestamp: 9 }), 0, 'never negative');
});

t.test('the window: absent until two heights are known, then over the last span of heights', async (t) => {
  const w = createBlockTimeWindow(10);
  t.equal(w.average(), undefined);
  w.add({ height: 1, timestamp: 100 });
  t.equal(w.average(), undefined, 'one block tells no pace');
  w.add({ height: 3, timestamp: 104 });
  t.equal(w.average(), 2_000, 'blocks in between need no timestamp');
  for (let h = 4; h <= 20; h++) w.add({ height: h, timestamp: 104 + (h - 3) * 12 });
  t.equal(w.average(), 12_000, 'the slow start has left the window');
  for (let h = 21; h <= 25; h++) w.add({ height: h, timestamp: 308 + (h - 20) });
  t.equal(w.average(), Math.round(((313 - 248) * 1000) / 10), 'the last 10 heights: 5 blocks of 12 s and 5 of 1 s');
});

t.test('the window after a rewind forgets the blocks from the rewound height up', async (t) => {
  const w = createBlockTimeWindow(100);
  for (let h = 0; h <= 10; h++) w.add({ height: h, timestamp: h * 2 });
  w.add({ height: 6, timestamp: 1_000 });
  t.equal(w.average(), Math.round((1_000 * 1000) / 6), 'from block 0 to the new block 6');
  w.add({ height: 0, timestamp: 0 });
  t.equal(w.average(), undefined, 'back to one block');
});

t.test('a sparse window (a dictionary skips blocks) spans what it has', async (t) => {
  const w = createBlockTimeWindow(100);
  w.add({ height: 1_000, timestamp: 0 });
  w.add({ height: 5_000, timestamp: 48_000 });
  w.add({ height: 5_050, timestamp: 48_600 });
  t.equal(w.average(), 12_000, 'the block 4,050 heights back is kept: none nearer reaches the span');
  w.add({ height: 5_200, timestamp: 50_400 });
  t.equal(w.average(), 12_000, 'now from 5,050');
});

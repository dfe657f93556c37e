import t from 'tap';
import { tenthRates, type ProgressSample } from './tenths.ts';

// blocks 1..100, 10 events a block; a look every 100 ms
const run = (msPerBlock: (h: number) => number, drainMs = 0): ProgressSample[] => {
  const samples: ProgressSample[] = [{ at: 0 }];
  let at = 50;
  for (let h = 1; h <= 100; h++) {
    samples.push({ at, processing: h, committed: h - 1 });
    at += msPerBlock(h);
  }
  samples.push({ at: at + drainMs, processing: 100, committed: 100 });
  return samples;
};

t.test('an even pace: both tenths at the same rate', async (t) => {
  const r = tenthRates(
    run(() => 100),
    1,
    100,
    1000,
  )!;
  t.equal(Math.round(r.first), 100); // 100 events in 1 s
  t.equal(Math.round(r.last), Math.round((100 / 900) * 1000)); // the last block's own time is not seen: 9 blocks' time
  t.ok(r.ratio > 1);
});

t.test('a slowing run: the last tenth twice as slow', async (t) => {
  const r = tenthRates(
    run((h) => (h > 90 ? 200 : 100)),
    1,
    100,
    1000,
  )!;
  t.ok(r.ratio < 0.6 && r.ratio > 0.5, `${r.ratio}`);
});

t.test('the final flush is told apart', async (t) => {
  const r = tenthRates(
    run(() => 100, 2000),
    1,
    100,
    1000,
  )!;
  t.equal(r.drainSeconds, 2.1); // the last block's own 100 ms, then the flush
  t.ok(r.ratio > 1);
});

t.test('undefined until the run is seen through, or with fewer than ten blocks', async (t) => {
  t.equal(tenthRates(run(() => 100).slice(0, 50), 1, 100, 1000), undefined);
  t.equal(
    tenthRates(
      run(() => 100),
      1,
      9,
      1000,
    ),
    undefined,
  );
});

t.test('a tenth between two looks counts one look long', async (t) => {
  const samples = [
    { at: 0, processing: 1 },
    { at: 100, processing: 60, committed: 59 },
    { at: 200, processing: 100, committed: 100 },
  ];
  const r = tenthRates(samples, 1, 100, 1000)!;
  t.equal(r.first, 1000);
  t.equal(r.last, 1000);
});

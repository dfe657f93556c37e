import t from 'tap';
import { createRateHistory } from './rate-history.ts';

t.test('the pace between samples, kept for a bounded number of samples', async (t) => {
  const h = createRateHistory({ keep: 3 });
  h.sample({ blocksProcessed: 0, eventsProcessed: 0 }, 0);
  t.same(h.points(), [], 'one sample is no pace yet');
  t.equal(h.blocksPerSecondOver(60_000), undefined);
  h.sample({ lastProcessedHeight: 20, blocksProcessed: 20, eventsProcessed: 300 }, 2000);
  t.same(h.points(), [{ at: 2000, height: 20, blocksPerSecond: 10, eventsPerSecond: 150 }]);
  for (let i = 2; i <= 6; i++) h.sample({ lastProcessedHeight: 20 * i, blocksProcessed: 20 * i + (i === 6 ? 20 : 0), eventsProcessed: 300 * i }, 2000 * i);
  t.same(
    h.points().map((p) => p.at),
    [8000, 10000, 12000],
    'the oldest samples go',
  );
  t.equal(h.points().at(-1)!.blocksPerSecond, 20);
  t.equal(h.blocksPerSecondOver(4000), (140 - 80) / 4, 'over a span: from the first sample in it');
  t.equal(h.blocksPerSecondOver(1), 20, 'a span shorter than a sample: the last sample');
});

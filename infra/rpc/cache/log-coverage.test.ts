import t from 'tap';
import { coveringSpans, logsWithin } from './log-coverage.ts';

const log = (h: number, i: number) => ({ blockNumber: `0x${h.toString(16)}`, logIndex: `0x${i.toString(16)}` });

t.test('kept ranges that together cover a range, or none when a height is missing', async (t) => {
  const spans = [
    { from: 1, to: 10, at: 'a' },
    { from: 11, to: 20, at: 'b' },
    { from: 5, to: 15, at: 'c' },
    { from: 22, to: 30, at: 'd' },
  ];
  t.same(
    coveringSpans(spans, 7, 18)?.map((s) => s.at),
    ['c', 'b'],
  );
  t.same(
    coveringSpans(spans, 1, 10)?.map((s) => s.at),
    ['a'],
  );
  t.equal(coveringSpans(spans, 18, 25), undefined, 'block 21 is in none');
  t.equal(coveringSpans([], 1, 1), undefined);
});

t.test('the logs of a range out of overlapping answers: in order, each once', async (t) => {
  const a = [log(1, 0), log(3, 0), log(3, 1)];
  const b = [log(3, 0), log(3, 1), log(4, 2), log(6, 0)];
  t.same(logsWithin([b, a], 2, 4), [log(3, 0), log(3, 1), log(4, 2)]);
  t.same(logsWithin([a], 5, 9), []);
  t.equal(logsWithin([[{ logIndex: '0x0' }]], 1, 2), undefined, 'a log without its block cannot be placed');
});

import t from 'tap';
import { createHeadPoll } from './head-poll.ts';

/**
 * A simulated chain: block k arrives at `arrivals[k]` ms. The poll looks, sleeps as told, looks
 * again; per block, how long after its arrival it was first seen, and how many looks were made.
 */
function follow(arrivals: readonly number[], maxMs: number, until: number) {
  const poll = createHeadPoll({ maxMs });
  const seenAt = new Map<number, number>();
  let looks = 0;
  for (let now = 0; now < until; now += poll.delay(now)) {
    looks++;
    let height = -1;
    while (height + 1 < arrivals.length && arrivals[height + 1]! <= now) height++;
    if (height >= 0 && !seenAt.has(height)) for (let h = 0; h <= height; h++) if (!seenAt.has(h)) seenAt.set(h, now);
    if (height >= 0) poll.seen(height, now);
  }
  const delays = [...seenAt].map(([h, at]) => at - arrivals[h]!);
  return { poll, delays, looks };
}

const median = (xs: readonly number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1]!;

t.test('a chain with 1 s blocks: each block seen within ~50 ms of arriving, a handful of looks per block', (t) => {
  // Blocks every 1 s with up to ±40 ms jitter, as a dev chain or an L2 produces them.
  const arrivals = Array.from({ length: 200 }, (_, k) => k * 1000 + ((k * 37) % 80) - 40 + 40);
  const { delays, looks, poll } = follow(arrivals, 1000, 200_000);
  const later = delays.slice(20); // once the pace is learnt
  t.ok(median(later) <= 50, `median delay ${median(later)} ms`);
  t.ok(Math.max(...later) <= 150, `worst delay ${Math.max(...later)} ms`);
  t.ok(looks / 200 <= 8, `${(looks / 200).toFixed(1)} looks per block`);
  t.ok(Math.abs(poll.blockTimeMs()! - 1000) < 100, `learnt block time ${poll.blockTimeMs()} ms`);
  t.end();
});

t.test('a chain with 12 s blocks: seen within 250 ms, with fewer looks than one a second', (t) => {
  const arrivals = Array.from({ length: 50 }, (_, k) => k * 12_000 + 500);
  const { delays, looks } = follow(arrivals, 1000, 600_000);
  t.ok(Math.max(...delays.slice(5)) <= 250, `worst delay ${Math.max(...delays.slice(5))} ms`);
  t.ok(looks <= 600, `${looks} looks in 600 s`);
  t.ok(looks >= 50, 'at least one look per block');
  t.end();
});

t.test('before the pace is known, maxMs; a slow chain sleeps until shortly before its next block', (t) => {
  const poll = createHeadPoll({ maxMs: 1000 });
  t.equal(poll.delay(0), 1000, 'nothing seen yet');
  poll.seen(10, 0);
  poll.seen(11, 12_000);
  poll.seen(12, 24_000);
  t.equal(poll.blockTimeMs(), undefined, 'two intervals are not enough');
  poll.seen(13, 36_000);
  t.equal(poll.blockTimeMs(), 12_000);
  t.equal(poll.delay(36_000), 10_000, 'sleeps until 2 s before the block is due');
  t.equal(poll.delay(46_000), 250, 'looked at often from shortly before the block is due');
  t.end();
});

t.test('a block that does not come: looks thin out back to maxMs', (t) => {
  const poll = createHeadPoll({ maxMs: 1000 });
  for (let k = 0; k < 10; k++) poll.seen(k, k * 1000);
  const waits: number[] = [];
  for (let now = 9000; now < 30_000; now += waits.at(-1)!) waits.push(poll.delay(now));
  t.equal(waits.at(-1), 1000, 'overdue: back to maxMs');
  t.ok(waits.length < 40, `${waits.length} looks in 21 s`);
  t.equal(waits[0], 800, 'sleeps until 200 ms before the block is due');
  t.equal(waits[1], 50, 'then looks often');
  const backingOff = waits.slice(waits.findIndex((w, i) => i > 1 && w > 50));
  t.equal(backingOff[0], 100);
  t.ok(
    backingOff.every((w, i) => i === 0 || w >= backingOff[i - 1]!),
    'once overdue, the waits only grow',
  );
  t.end();
});

t.test('several blocks seen at once share the interval', (t) => {
  const poll = createHeadPoll({ maxMs: 5000 });
  poll.seen(0, 0);
  poll.seen(4, 4000);
  poll.seen(8, 8000);
  poll.seen(12, 12_000);
  t.equal(poll.blockTimeMs(), 1000);
  poll.seen(11, 13_000);
  t.equal(poll.blockTimeMs(), 1000, 'a lower height (another endpoint lagging) teaches nothing');
  t.end();
});

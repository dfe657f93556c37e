import t from 'tap';
import { asyncFlushRecords, flushStep, type FlushLimits, type FlushState } from './flush-step.ts';

const limits: FlushLimits = { async: true, intervalMs: 5000, threshold: 1000, upperLimit: 20_000 };
const state = (s: Partial<FlushState>): FlushState => ({ caughtUp: false, inFlight: false, pending: 0, sinceLastFlushMs: 0, ...s });

t.test('async: a flush starts at half the upper limit or at the interval', async (t) => {
  t.equal(asyncFlushRecords(20_000), 10_000);
  t.equal(flushStep(state({ pending: 9_999 }), limits), 'collect');
  t.equal(flushStep(state({ pending: 10_000 }), limits), 'flush');
  t.equal(flushStep(state({ sinceLastFlushMs: 5000 }), limits), 'flush');
});

t.test('async: behind a flush committing, collect until the upper limit, then wait for it', async (t) => {
  t.equal(flushStep(state({ inFlight: true, pending: 19_999, sinceLastFlushMs: 60_000 }), limits), 'collect', 'not even the interval queues a second flush');
  t.equal(flushStep(state({ inFlight: true, pending: 20_000 }), limits), 'flush-after-previous');
});

t.test('caught up: flush now, in flight or not', async (t) => {
  t.equal(flushStep(state({ caughtUp: true }), limits), 'flush');
  t.equal(flushStep(state({ caughtUp: true, inFlight: true }), limits), 'flush');
});

t.test('within a range: only the interval and the upper limit', async (t) => {
  t.equal(flushStep(state({ pending: 15_000, withinRange: true }), limits), 'collect');
  t.equal(flushStep(state({ caughtUp: true, withinRange: true }), limits), 'collect');
  t.equal(flushStep(state({ sinceLastFlushMs: 5000, withinRange: true }), limits), 'flush');
  t.equal(flushStep(state({ inFlight: true, pending: 20_000, withinRange: true }), limits), 'flush-after-previous');
});

t.test('sync: the threshold or the interval; the upper limit does not apply', async (t) => {
  const sync = { ...limits, async: false };
  t.equal(flushStep(state({ pending: 999 }), sync), 'collect');
  t.equal(flushStep(state({ pending: 1000 }), sync), 'flush');
  t.equal(flushStep(state({ sinceLastFlushMs: 5000 }), sync), 'flush');
  t.equal(flushStep(state({ pending: 1000, withinRange: true }), sync), 'collect');
});

t.test('an upper limit of 1 still flushes', async (t) => {
  t.equal(asyncFlushRecords(1), 1);
  t.equal(flushStep(state({ pending: 1 }), { ...limits, upperLimit: 1 }), 'flush');
});

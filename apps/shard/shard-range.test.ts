import t from 'tap';
import { answerHeight, newestServed, refuseEnd, refuseStart, withEnd } from './shard-range.ts';

const r = { tail: 10, head: 50, synced: 40 };

t.test('answerHeight: genesis always, 4444 outside [tail, head], null above the synced height', async (t) => {
  t.same(answerHeight(r, 0), { kind: 'served', height: 0 });
  t.same(answerHeight(r, 9), { kind: 'below-tail', earliest: 10 });
  t.same(answerHeight(r, 10), { kind: 'served', height: 10 });
  t.same(answerHeight(r, 40), { kind: 'served', height: 40 });
  t.same(answerHeight(r, 45), { kind: 'unknown' });
  t.same(answerHeight(r, 51), { kind: 'above-head', latest: 40 });
  t.same(answerHeight({ ...r, head: null }, 1e6), { kind: 'unknown' });
  t.equal(newestServed({ tail: 10, head: null, synced: 9 }), 0, 'nothing synced from the tail yet: only genesis');
});

t.test('head rules', async (t) => {
  t.equal(refuseEnd(r, null, true), undefined, 'null unsets');
  t.equal(refuseEnd(r, 0, true), undefined, '0 unsets');
  t.match(refuseEnd(r, 10, true), /greater than the tail/);
  t.match(refuseEnd(r, 5, true), /greater than the tail/);
  t.equal(refuseEnd(r, 11, true), undefined);
  t.match(refuseEnd(r, 20, false), /no chain state at block 20/);
  t.equal(refuseEnd(r, 1000, false), undefined, 'above the chain: syncs until it gets there');
  t.same(withEnd(r, 20), { tail: 10, head: 20, synced: 20 }, 'below the synced height: truncates');
  t.same(withEnd(r, 0), { tail: 10, head: null, synced: 40 });
});

t.test('tail rules', async (t) => {
  t.match(refuseStart(r, 10), /only moves forward/);
  t.match(refuseStart(r, 3), /only moves forward/);
  t.match(refuseStart(r, 50), /below the head 50/);
  t.match(refuseStart(r, 45), /not synced yet \(synced up to 40\)/);
  t.equal(refuseStart(r, 40), undefined);
  t.equal(refuseStart({ ...r, head: null }, 11), undefined);
});

import t from 'tap';
import { chainHistoryMismatch, fromStoredVerifiable, historyCheck, sameHistory } from './indexed-history.ts';

t.test('the stored block is read as written, and anything else (older schemas) as nothing stored', async (t) => {
  t.same(fromStoredVerifiable({ height: 12, hash: '0xab' }), { height: 12, hash: '0xab' });
  t.same(fromStoredVerifiable('{"height":12,"hash":"0xab"}'), { height: 12, hash: '0xab' }, 'a JSON text too');
  for (const value of [undefined, null, '', 'not json', 12, { height: 12 }, { hash: '0xab' }, { height: -1, hash: '0xab' }, { height: 1.5, hash: '0xab' }]) {
    t.equal(fromStoredVerifiable(value), undefined, JSON.stringify(value) ?? 'undefined');
  }
});

t.test('the chain is asked for its hash only when it reaches the stored block', async (t) => {
  t.same(historyCheck(undefined, 100), { kind: 'nothing-stored' }, 'older data: no check');
  t.same(historyCheck({ height: 40, hash: '0xab' }, 100), { kind: 'ask', height: 40 });
  t.same(historyCheck({ height: 40, hash: '0xab' }, 40), { kind: 'ask', height: 40 }, 'at the head');
  t.same(historyCheck({ height: 40, hash: '0xab' }, 39), { kind: 'chain-shorter', height: 40, best: 39 });
});

t.test('hashes compare without regard to hex case', async (t) => {
  t.ok(sameHistory({ height: 1, hash: '0xABcd' }, '0xabCD'));
  t.notOk(sameHistory({ height: 1, hash: '0xabcd' }, '0xabce'));
});

t.test('the refusal names the height, both hashes and the ways out', async (t) => {
  const err = chainHistoryMismatch({ height: 40, hash: '0xAAAA' }, '0xBBBB');
  t.equal(err.code, 'CHAIN_HISTORY_MISMATCH');
  t.notOk(err.retryable, 'final: waiting does not bring the old chain back');
  t.match(err.message, /block 40 is 0xbbbb/);
  t.match(err.message, /indexed block 40 as 0xaaaa/);
  t.match(err.message, /idx-node force-clean -f <project>/);
  t.match(err.message, /idx-node reindex -f <project> --targetHeight=<height>/);
});

import t from 'tap';
import { closestName, didYouMean, editDistance } from './closest-name.ts';

t.test('edit distance counts a swap of neighbours as one edit', async (t) => {
  t.equal(editDistance('handleTransfer', 'handleTransfer'), 0);
  t.equal(editDistance('handleTranfser', 'handleTransfer'), 1);
  t.equal(editDistance('handleTransfe', 'handleTransfer'), 1);
  t.equal(editDistance('handleBlock', 'handleTransfer'), 8);
  t.equal(editDistance('', 'abc'), 3);
});

t.test('the one close candidate, or none', async (t) => {
  const handlers = ['handleTransfer', 'handleApproval', 'handleBlock'];
  t.equal(closestName('handleTranfser', handlers), 'handleTransfer');
  t.equal(closestName('handletransfer', handlers), 'handleTransfer', 'case alone');
  t.equal(closestName('handleMint', handlers), undefined);
  t.equal(closestName('ab', ['ac', 'ad']), undefined, 'two as close: no guess');
  t.equal(didYouMean('batchSise', ['batchSize', 'port'], 2), ' (did you mean "batchSize"?)');
  t.equal(didYouMean('nothing', ['batchSize']), '');
});

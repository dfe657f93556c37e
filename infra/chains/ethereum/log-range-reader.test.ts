import t from 'tap';
import { logFilter, splitRange } from './log-range-reader.ts';

t.test('a range cut into spans of at most span blocks', async (t) => {
  t.same(splitRange({ fromBlock: 1, toBlock: 5 }, 2), [
    { fromBlock: 1, toBlock: 2 },
    { fromBlock: 3, toBlock: 4 },
    { fromBlock: 5, toBlock: 5 },
  ]);
  t.same(splitRange({ fromBlock: 1, toBlock: 5 }, Number.POSITIVE_INFINITY), [{ fromBlock: 1, toBlock: 5 }]);
  t.same(splitRange({ fromBlock: 7, toBlock: 7 }, 0.5), [{ fromBlock: 7, toBlock: 7 }], 'at least one block');
});

t.test('the eth_getLogs filter: one address bare, trailing any-topics dropped', async (t) => {
  t.same(logFilter({ fromBlock: 0, toBlock: 0, address: ['0xa'], topics: [['0x1'], null, ['0x2', '0x3'], null] }, { fromBlock: 16, toBlock: 31 }), {
    fromBlock: '0x10',
    toBlock: '0x1f',
    address: '0xa',
    topics: ['0x1', null, ['0x2', '0x3']],
  });
  t.same(logFilter({ fromBlock: 0, toBlock: 0, address: ['0xa', '0xb'], topics: [null] }, { fromBlock: 1, toBlock: 1 }), {
    fromBlock: '0x1',
    toBlock: '0x1',
    address: ['0xa', '0xb'],
  });
});

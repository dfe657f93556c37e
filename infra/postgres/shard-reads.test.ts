import t from 'tap';
import { logsSql } from './shard-reads.ts';

t.test('the logs query takes the addresses and each position of topics given, in order, and the limit last', async (t) => {
  t.same(logsSql('"s"."logs"', { fromBlock: 5, toBlock: 9, topics: [], limit: 10 }), {
    text: 'select block_number, log from "s"."logs" where block_number between $1 and $2 order by block_number, position limit $3',
    values: [5, 9, 10],
  });
  t.same(logsSql('"s"."logs"', { fromBlock: 1, toBlock: 2, addresses: ['0xa'], topics: [['0xt0'], null, ['0xt2a', '0xt2b']], limit: 3 }), {
    text:
      'select block_number, log from "s"."logs" where block_number between $1 and $2 and address = any($3::text[])' +
      ' and topic0 = any($4::text[]) and topic2 = any($5::text[]) order by block_number, position limit $6',
    values: [1, 2, ['0xa'], ['0xt0'], ['0xt2a', '0xt2b'], 3],
  });
});

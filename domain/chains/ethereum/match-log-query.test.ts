import t from 'tap';
import { matchesLogQuery } from './match-log-query.ts';

const A = '0x' + 'aa'.repeat(20);
const T = (n: number) => '0x' + String(n).repeat(64);
const log = { address: A, topics: [T(1), T(2)] };

t.test('a log matches eth_getLogs semantics: any listed address, per position any listed topic', async (t) => {
  t.ok(matchesLogQuery({}, log));
  t.ok(matchesLogQuery({ address: ['0x' + 'AA'.repeat(20)] }, log), 'addresses compare without case');
  t.notOk(matchesLogQuery({ address: [] }, log));
  t.ok(matchesLogQuery({ topics: [null, [T(3), T(2)]] }, log));
  t.notOk(matchesLogQuery({ topics: [[T(2)]] }, log), 'positions matter');
  t.notOk(matchesLogQuery({ topics: [null, null, [T(3)]] }, log), 'a position the log lacks');
  t.ok(matchesLogQuery({ topics: [null, null, null] }, log));
});

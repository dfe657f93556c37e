import t from 'tap';
import { createTransactionYield } from './transaction-yield.ts';

t.test('a transaction yields after the limit only while the node waits; after a rollback, after 0.2 s for 10 s', async (t) => {
  let waiting = 0;
  const y = createTransactionYield(1000, () => waiting);
  t.notOk(y.overtime(0, 5000), 'nobody waits: no limit');
  waiting = 1;
  t.notOk(y.overtime(undefined, 5000), 'no transaction');
  t.notOk(y.overtime(4100, 5000), '0.9 s: within the limit');
  t.ok(y.overtime(4000, 5000), '1 s: over');
  y.rolledBack(5000);
  t.notOk(y.overtime(5850, 6000), '0.15 s after a rollback: within');
  t.ok(y.overtime(5800, 6000), '0.2 s after a rollback: over');
  t.notOk(y.overtime(15_500, 16_000), '10 s after the rollback the limit is 1 s again');
  t.equal(createTransactionYield(100, () => 1).overtime(0, 100), true, 'a limit under 0.2 s stays the limit');
});

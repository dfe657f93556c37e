import t from 'tap';
import { cronDue } from './cron-schedule.ts';

const at = (iso: string) => Date.parse(iso) / 1000;

t.test('due when a tick falls after the previous block and at or before this one', async (t) => {
  t.equal(cronDue('0 0 * * *', at('2024-01-01T23:59:50Z'), at('2024-01-02T00:00:02Z')), true, 'midnight passed');
  t.equal(cronDue('0 0 * * *', at('2024-01-02T00:00:02Z'), at('2024-01-02T00:00:14Z')), false, 'already handled');
  t.equal(cronDue('0 0 * * *', at('2024-01-01T23:59:48Z'), at('2024-01-02T00:00:00Z')), true, 'a tick exactly at the block counts');
  t.equal(cronDue('*/15 * * * * *', at('2024-01-01T00:00:01Z'), at('2024-01-01T00:00:13Z')), false, 'six fields: seconds first');
  t.equal(cronDue('*/15 * * * * *', at('2024-01-01T00:00:13Z'), at('2024-01-01T00:00:25Z')), true);
  t.equal(cronDue('0 0 * * MON', at('2024-01-07T23:00:00Z'), at('2024-01-08T00:00:01Z')), true, 'named days');
  t.equal(cronDue('0 0 * * *', 100, 100), false, 'same timestamp: no time passed');
});

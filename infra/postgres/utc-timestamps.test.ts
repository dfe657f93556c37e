import t from 'tap';
import { parseUtcTimestamp } from './utc-timestamps.ts';

t.test('timestamp text is read as UTC, whatever the process time zone', async (t) => {
  t.equal(parseUtcTimestamp('2024-05-01 12:00:00').toISOString(), '2024-05-01T12:00:00.000Z');
  t.equal(parseUtcTimestamp('2024-02-29 23:59:59.123456').toISOString(), '2024-02-29T23:59:59.123Z', 'a leap day, microseconds cut to milliseconds');
  t.equal(parseUtcTimestamp('0099-01-01 00:00:00').toISOString(), '0099-01-01T00:00:00.000Z', 'years below 100 stay');
  t.equal(parseUtcTimestamp('0001-01-01 00:00:00 BC').getUTCFullYear(), 0, '1 BC is year 0');
  t.equal(parseUtcTimestamp('12345-01-01 00:00:00').getUTCFullYear(), 12345);
  t.equal(parseUtcTimestamp('2024-05-01T12:00:00.5').toISOString(), '2024-05-01T12:00:00.500Z', "to_jsonb's form");
  t.ok(Number.isNaN(parseUtcTimestamp('infinity').getTime()));
});

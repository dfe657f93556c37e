import t from 'tap';
import { aggregateSql, groupingSql, orderingAggregateSql } from './aggregate-expressions.ts';

const value = { column: 'value', kind: 'bigfloat', list: false } as const;
const ratio = { column: 'ratio', kind: 'float', list: false } as const;
const at = { column: 'at', kind: 'datetime', list: false } as const;
const data = { column: 'data', kind: 'bytes', list: false } as const;

t.test('aggregates as GraphQL shows them, and as having compares them', async (t) => {
  t.equal(aggregateSql('sum', value, 't', true), 'coalesce(sum(t."value"), 0)::text');
  t.equal(aggregateSql('average', ratio, 't', true), 'avg(t."ratio")');
  t.equal(aggregateSql('distinctCount', value, 't', true), 'count(distinct t."value")::text');
  t.equal(aggregateSql('max', value, 't', false), 'max(t."value")::numeric');
  t.equal(aggregateSql('min', at, 't', false), 'min(t."at")');
});

t.test('ordering by related rows, and grouping keys', async (t) => {
  t.equal(orderingAggregateSql('distinctCount', value, 'r'), 'count(distinct r."value")');
  t.equal(orderingAggregateSql('max', value, 'r'), 'max(r."value")');
  t.equal(orderingAggregateSql('stddevSample', value, 'r'), 'stddev_samp(r."value")::numeric');
  t.equal(groupingSql('t', data), `('0x' || encode(t."data", 'hex'))`);
  t.equal(groupingSql('t', at, 'day'), `date_trunc('day', t."at")`);
  t.equal(groupingSql('t', value), 't."value"');
});
